package io.kes.connector.table;

import io.kes.connector.DocumentOperation;
import io.kes.connector.IndexNameTemplate;
import io.kes.connector.KafkaCoordinateId;
import io.kes.connector.OpType;
import io.kes.connector.RecordOrigin;
import java.io.Serializable;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.api.common.serialization.RuntimeContextInitializationContextAdapters;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.utils.ProjectedRowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

/**
 * Turns one changelog row into its {@link DocumentOperation}: INSERT and UPDATE_AFTER rows index
 * (or create, or upsert) the row's JSON, DELETE and UPDATE_BEFORE rows delete the document. Ids
 * come from the PRIMARY KEY's values joined by the delimiter, else from the Kafka coordinates,
 * else Elasticsearch makes them.
 *
 * <p>Why UPDATE_BEFORE deletes. The table asks the planner for an upsert changelog (no
 * UPDATE_BEFORE), and the planner sends UPDATE_BEFORE rows only where a step of the query needed
 * them: a filter over an updating result ({@code WHERE n < 3} over a {@code COUNT}) turns a key's
 * update into an UPDATE_BEFORE that passes and an UPDATE_AFTER that does not. That UPDATE_BEFORE is
 * the only sign that the key left the result; dropping it left the document behind (as
 * {@code SqlSinkIT} showed). Where an UPDATE_AFTER follows, it writes the document again, in
 * order, through the same writer; Flink's own Elasticsearch and upsert-kafka sinks do the same.
 */
final class RowToDocument extends RichFlatMapFunction<RowData, DocumentOperation> {

    private static final long serialVersionUID = 1L;

    /**
     * How rows of one table become documents, validated by {@link KesTableSinkFactory}.
     *
     * @param index   the index option (a name or a template over {@code columns})
     * @param columns the physical columns, in row order
     * @param types   their types
     * @param key     positions of the PRIMARY KEY columns, empty without one
     * @param keyId   how the values of a key of several columns make the id
     * @param routing position of the routing column, or -1
     * @param pipeline the ingest pipeline of every indexed row, or null
     */
    record Spec(
            String index,
            List<String> columns,
            List<LogicalType> types,
            int[] key,
            CompositeKeyId keyId,
            int routing,
            KesTableOptions.Op op,
            String pipeline)
            implements Serializable {
        boolean hasKey() {
            return key.length > 0;
        }
    }

    private final Spec spec;
    private final SerializationSchema<RowData> serializer;
    /** Positions of topic, partition and offset after the physical columns, or null. */
    private final int[] coordinates;

    private transient IndexNameTemplate index;
    private transient ColumnText[] placeholderText;
    private transient ProjectedRowData physical;

    RowToDocument(Spec spec, SerializationSchema<RowData> serializer, int[] coordinates) {
        this.spec = spec;
        this.serializer = serializer;
        this.coordinates = coordinates;
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        serializer.open(RuntimeContextInitializationContextAdapters.serializationAdapter(getRuntimeContext()));
        index = IndexNameTemplate.parse(spec.index());
        // null: {now()|pattern}, the system time (the official connectors' syntax)
        placeholderText = index.placeholders().stream()
                .map(p -> OfficialOptions.isSystemTime(p.name())
                        ? null
                        : ColumnText.of(
                                spec.columns().indexOf(p.name()),
                                spec.types().get(spec.columns().indexOf(p.name()))))
                .toArray(ColumnText[]::new);
        if (coordinates != null) {
            int[] fields = new int[spec.columns().size()];
            for (int i = 0; i < fields.length; i++) {
                fields[i] = i;
            }
            physical = ProjectedRowData.from(fields);
        }
    }

    @Override
    public void flatMap(RowData row, Collector<DocumentOperation> out) {
        RowKind kind = row.getRowKind();
        RecordOrigin origin = coordinates == null
                ? RecordOrigin.NONE
                : RecordOrigin.kafka(
                        row.getString(coordinates[0]).toString(),
                        row.getInt(coordinates[1]),
                        row.getLong(coordinates[2]));
        String id = spec.hasKey()
                ? idOf(spec, row)
                : origin.isKnown() ? KafkaCoordinateId.of(origin.topic(), origin.partition(), origin.offset()) : null;
        String target = indexOf(row);
        String routing = spec.routing() < 0 || row.isNullAt(spec.routing())
                ? null
                : ColumnText.of(spec.routing(), spec.types().get(spec.routing()))
                        .of(row);
        if (kind == RowKind.DELETE || kind == RowKind.UPDATE_BEFORE) {
            out.collect(DocumentOperation.write(OpType.DELETE, target)
                    .id(id)
                    .routing(routing)
                    .origin(origin)
                    .build());
            return;
        }
        byte[] source = serializer.serialize(physical == null ? row : physical.replaceRow(row));
        OpType op = switch (spec.op()) {
            case INDEX -> OpType.INDEX;
            case CREATE -> OpType.CREATE;
            case UPSERT -> OpType.UPSERT;
        };
        out.collect(DocumentOperation.write(op, target)
                .id(id)
                .routing(routing)
                .source(source)
                .origin(origin)
                .pipeline(op == OpType.UPSERT ? null : spec.pipeline())
                .build());
    }

    private String indexOf(RowData row) {
        if (index.isLiteral()) {
            return index.template(); // without the lambda below, which C1 (bin/kes run's JIT) allocates per row
        }
        int[] next = {0};
        return index.render(p -> {
            ColumnText text = placeholderText[next[0]++];
            if (text == null) {
                return p.format(Instant.now());
            }
            if (row.isNullAt(text.position())) {
                throw new IllegalArgumentException(
                        "index '" + spec.index() + "' needs column " + p.name() + ", which is null in a "
                                + row.getRowKind() + " row: give the column a value (e.g. COALESCE(" + p.name()
                                + ", 'unknown')) or "
                                + "declare it NOT NULL");
            }
            return p.isDate() ? p.format(text.instant(row)) : text.of(row);
        });
    }

    static String idOf(Spec spec, RowData row) {
        if (spec.key().length == 1) {
            return ColumnText.of(spec.key()[0], spec.types().get(spec.key()[0])).of(row);
        }
        String[] values = new String[spec.key().length];
        for (int i = 0; i < values.length; i++) {
            values[i] = ColumnText.of(spec.key()[i], spec.types().get(spec.key()[i]))
                    .of(row);
        }
        return spec.keyId().of(values);
    }

    /** The document id of a row: what the rows are partitioned by before the writer. */
    static final class IdOf implements KeySelector<RowData, String> {
        private static final long serialVersionUID = 1L;
        private final Spec spec;

        IdOf(Spec spec) {
            this.spec = spec;
        }

        @Override
        public String getKey(RowData row) {
            return idOf(spec, row);
        }
    }

    /** A column's value as text: ISO-8601 for dates and times, the plain value otherwise. */
    record ColumnText(int position, LogicalType type) {
        static ColumnText of(int position, LogicalType type) {
            return new ColumnText(position, type);
        }

        String of(RowData row) {
            return switch (type.getTypeRoot()) {
                case CHAR, VARCHAR -> row.getString(position).toString();
                case BOOLEAN -> Boolean.toString(row.getBoolean(position));
                case TINYINT -> Byte.toString(row.getByte(position));
                case SMALLINT -> Short.toString(row.getShort(position));
                case INTEGER, INTERVAL_YEAR_MONTH -> Integer.toString(row.getInt(position));
                case BIGINT, INTERVAL_DAY_TIME -> Long.toString(row.getLong(position));
                case FLOAT -> Float.toString(row.getFloat(position));
                case DOUBLE -> Double.toString(row.getDouble(position));
                case DATE -> LocalDate.ofEpochDay(row.getInt(position)).toString();
                case TIME_WITHOUT_TIME_ZONE ->
                    LocalTime.ofNanoOfDay(row.getInt(position) * 1_000_000L).toString();
                case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> instant(row).toString();
                default ->
                    String.valueOf(RowData.createFieldGetter(type, position).getFieldOrNull(row));
            };
        }

        /** A DATE, TIME, TIMESTAMP or TIMESTAMP_LTZ column as a point in time; TIMESTAMP, DATE and TIME (on 1970-01-01) count as UTC. */
        Instant instant(RowData row) {
            return switch (type.getTypeRoot()) {
                case DATE ->
                    LocalDate.ofEpochDay(row.getInt(position)).atStartOfDay().toInstant(ZoneOffset.UTC);
                case TIME_WITHOUT_TIME_ZONE ->
                    LocalTime.ofNanoOfDay(row.getInt(position) * 1_000_000L)
                            .atDate(LocalDate.EPOCH)
                            .toInstant(ZoneOffset.UTC);
                default -> {
                    TimestampData t = row.getTimestamp(position, precision(type));
                    yield type.getTypeRoot()
                                    == org.apache.flink.table.types.logical.LogicalTypeRoot
                                            .TIMESTAMP_WITH_LOCAL_TIME_ZONE
                            ? t.toInstant()
                            : t.toLocalDateTime().toInstant(ZoneOffset.UTC);
                }
            };
        }

        private static int precision(LogicalType type) {
            return org.apache.flink.table.types.logical.utils.LogicalTypeChecks.getPrecision(type);
        }
    }
}
