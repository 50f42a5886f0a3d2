package io.kes.connector.table;

import io.kes.connector.DocumentOperation;
import io.kes.connector.ElasticsearchSink;
import io.kes.connector.IndexNameTemplate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.abilities.SupportsWritingMetadata;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The planned {@code 'connector' = 'kes'} table: rows become {@link DocumentOperation}s
 * ({@link RowToDocument}) that {@link ElasticsearchSink} writes.
 *
 * <p>Order. The sink keeps, per document id, the order in which one writer receives the writes.
 * With a PRIMARY KEY, the rows are hash-partitioned by their id before the writer, so every key
 * has one writer whatever the query's shape (the planner's own keyed shuffle,
 * {@code table.exec.sink.keyed-shuffle}, only acts when the sink's parallelism differs from its
 * input's). A key whose rows the query already keeps in one task (a GROUP BY on it, an upsert
 * materializer) keeps their order through that shuffle; rows of one key that come from two tasks
 * (two Kafka partitions) had no order to keep. Without a key every row is its own document and the
 * converter is chained to the input, as in the kes job: no shuffle.
 *
 * <p>Kafka coordinates. The table may declare the writable metadata {@code kafka.topic},
 * {@code kafka.partition} and {@code kafka.offset}, filled from a Kafka table's {@code topic},
 * {@code partition} and {@code offset} metadata: without a PRIMARY KEY they make the document ids
 * (replays overwrite), and they name the record in errors.
 */
final class KesDynamicSink implements DynamicTableSink, SupportsWritingMetadata {

    private static final Logger LOG = LoggerFactory.getLogger(KesDynamicSink.class);

    static final String TOPIC = "kafka.topic";
    static final String PARTITION = "kafka.partition";
    static final String OFFSET = "kafka.offset";

    private final ElasticsearchSink sink;

    @VisibleForTesting
    final RowToDocument.Spec spec;

    private final EncodingFormat<SerializationSchema<RowData>> format;
    private final DataType physicalType;
    private final String table;
    /** {@code sink.parallelism}, or null: the input's. */
    private final Integer parallelism;

    private List<String> metadataKeys = List.of();

    KesDynamicSink(
            ElasticsearchSink sink,
            RowToDocument.Spec spec,
            EncodingFormat<SerializationSchema<RowData>> format,
            DataType physicalType,
            String table,
            Integer parallelism) {
        this.sink = sink;
        this.parallelism = parallelism;
        this.spec = spec;
        this.format = format;
        this.physicalType = physicalType;
        this.table = table;
    }

    @Override
    public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
        if (!requestedMode.containsOnly(org.apache.flink.types.RowKind.INSERT)
                && IndexNameTemplate.parse(spec.index()).placeholders().stream()
                        .anyMatch(p -> OfficialOptions.isSystemTime(p.name()))) {
            // As Flink's own Elasticsearch sinks: a key's later rows could land in another index than its first.
            throw new ValidationException(
                    "index '" + spec.index() + "' takes its name from the system time, which works only on an "
                            + "append-only stream: an update or delete of a key would go to another index than the key's document; "
                            + "name a column of the row in 'index' instead");
        }
        // Without a key, or with op create, a row has nothing to update or delete: the planner then
        // refuses queries that produce updates, with its own message.
        if (!spec.hasKey() || spec.op() == KesTableOptions.Op.CREATE) {
            return ChangelogMode.insertOnly();
        }
        return ChangelogMode.upsert();
    }

    @Override
    public Map<String, DataType> listWritableMetadata() {
        Map<String, DataType> metadata = new LinkedHashMap<>();
        metadata.put(TOPIC, DataTypes.STRING().notNull());
        metadata.put(PARTITION, DataTypes.INT().notNull());
        metadata.put(OFFSET, DataTypes.BIGINT().notNull());
        return metadata;
    }

    @Override
    public void applyWritableMetadata(List<String> metadataKeys, DataType consumedDataType) {
        if (!metadataKeys.isEmpty() && !metadataKeys.containsAll(List.of(TOPIC, PARTITION, OFFSET))) {
            throw new ValidationException(
                    "table " + table + " declares Kafka metadata " + metadataKeys + " but not all of "
                            + TOPIC + ", " + PARTITION + " and " + OFFSET
                            + ": declare the three (e.g. topic STRING METADATA FROM '"
                            + TOPIC + "') or none");
        }
        this.metadataKeys = List.copyOf(metadataKeys);
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
        SerializationSchema<RowData> serializer = format.createRuntimeEncoder(context, physicalType);
        int[] coordinates = metadataKeys.isEmpty()
                ? null
                : new int[] {
                    spec.columns().size() + metadataKeys.indexOf(TOPIC),
                    spec.columns().size() + metadataKeys.indexOf(PARTITION),
                    spec.columns().size() + metadataKeys.indexOf(OFFSET)
                };
        if (!spec.hasKey() && coordinates == null) {
            LOG.warn(
                    "Table {} has no PRIMARY KEY and no Kafka metadata columns ({}, {}, {}): Elasticsearch generates the document ids, "
                            + "so rows replayed after a failure are indexed twice. Declare a PRIMARY KEY, or the three metadata columns filled "
                            + "from a Kafka table's topic, partition and offset, for idempotent writes.",
                    table,
                    TOPIC,
                    PARTITION,
                    OFFSET);
        }
        RowToDocument toDocument = new RowToDocument(spec, serializer, coordinates);
        return new DataStreamSinkProvider() {
            @Override
            public DataStreamSink<?> consumeDataStream(
                    org.apache.flink.table.connector.ProviderContext provider, DataStream<RowData> rows) {
                DataStream<RowData> input = rows;
                if (spec.hasKey()) {
                    input = rows.keyBy(new RowToDocument.IdOf(spec), Types.STRING);
                }
                // ElasticsearchSink's pre-write topology (the slot router, chained to the converter,
                // and the writers) runs at the converter's parallelism: sink.parallelism sets all.
                int writers = parallelism != null ? parallelism : input.getParallelism();
                SingleOutputStreamOperator<DocumentOperation> documents = input.flatMap(
                                toDocument, TypeInformation.of(DocumentOperation.class))
                        .name("kes: rows to documents")
                        .setParallelism(writers);
                provider.generateUid("kes-rows-to-documents").ifPresent(documents::uid);
                DataStreamSink<DocumentOperation> out = documents
                        .sinkTo(sink.writingTo(List.of(spec.index())))
                        .name("kes: " + table)
                        .setParallelism(writers);
                provider.generateUid("kes-sink").ifPresent(out::uid);
                return out;
            }
        };
    }

    /** The sink the table writes through, with its settings (for tests of the option mapping). */
    ElasticsearchSink elasticsearchSink() {
        return sink;
    }

    @Override
    public DynamicTableSink copy() {
        KesDynamicSink copy = new KesDynamicSink(sink, spec, format, physicalType, table, parallelism);
        copy.metadataKeys = metadataKeys;
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "kes";
    }
}
