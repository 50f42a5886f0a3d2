package io.kes.connector.table;

import static io.kes.connector.table.KesTableOptions.*;

import io.kes.connector.ElasticsearchSink;
import io.kes.connector.FailureHandler;
import io.kes.connector.IndexNameTemplate;
import io.kes.connector.deadletter.DeadLetterFailureHandler;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.factories.SerializationFormatFactory;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeFamily;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code 'connector' = 'kes'}: a Flink SQL / Table API table that writes its rows to Elasticsearch
 * through {@link ElasticsearchSink}, in single-shard bulks, with the checkpoint fence and per-id
 * order. Validates every option when the statement is planned, naming the option to change.
 */
@Internal
public final class KesTableSinkFactory implements DynamicTableSinkFactory {

    private static final Logger LOG = LoggerFactory.getLogger(KesTableSinkFactory.class);

    public static final String IDENTIFIER = "kes";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(INDEX, HOSTS);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        Set<ConfigOption<?>> options = new HashSet<>(KesTableOptions.all());
        options.removeAll(requiredOptions());
        options.addAll(OfficialOptions.all());
        return options;
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        ReadableConfig options = helper.getOptions();
        String format = options.get(FORMAT);
        if (!"json".equals(format)) {
            throw new ValidationException(FORMAT.key() + " '" + format
                    + "' is not supported: kes writes JSON documents; use 'format' = 'json'");
        }
        String opName = options.get(ConfigOptions.key(OP.key()).stringType().defaultValue("index"));
        if (Arrays.stream(Op.values()).noneMatch(o -> o.name().equalsIgnoreCase(opName))) {
            throw new ValidationException(OP.key() + " '" + opName + "' is not one of index, create, upsert");
        }
        EncodingFormat<SerializationSchema<RowData>> encoding =
                helper.discoverEncodingFormat(SerializationFormatFactory.class, FORMAT);
        helper.validateExcept(DEAD_LETTER_PROPERTIES_PREFIX);
        Map<String, String> written = context.getCatalogTable().getOptions();
        String table = context.getObjectIdentifier().asSummaryString();
        // An official option kes takes although it does something of its own: one line each, saying what. A
        // warning, so that bin/kes sql shows it on the terminal: the table does not do literally what it says.
        OfficialOptions.check(options, written).forEach(note -> LOG.warn("Table {}: {}", table, note));

        FailureHandler failureHandler = failureHandler(options, written);
        ElasticsearchSink sink;
        try {
            Configuration sinkOptions = sinkConfiguration(options);
            OfficialOptions.translate(options, sinkOptions);
            sink = ElasticsearchSink.builder()
                    .setAll(sinkOptions)
                    .setFailureHandler(failureHandler)
                    .build();
        } catch (IllegalArgumentException e) {
            throw new ValidationException(inTableTerms(e.getMessage(), written));
        }
        Integer parallelism = options.getOptional(SINK_PARALLELISM).orElse(null);
        if (parallelism != null && parallelism < 1) {
            throw new ValidationException(SINK_PARALLELISM.key() + " must be at least 1, got " + parallelism
                    + "; leave it out to run the writers at the input's parallelism");
        }

        ResolvedSchema schema = context.getCatalogTable().getResolvedSchema();
        List<Column> physical =
                schema.getColumns().stream().filter(Column::isPhysical).toList();
        List<String> names = physical.stream().map(Column::getName).toList();
        int[] key = schema.getPrimaryKey()
                .map(pk -> pk.getColumns().stream().mapToInt(names::indexOf).toArray())
                .orElse(new int[0]);
        Op op = options.get(OP);
        if (op == Op.UPSERT && key.length == 0) {
            throw new ValidationException(
                    OP.key() + " 'upsert' needs a PRIMARY KEY: the document to merge into is named by the key; "
                            + "declare one, e.g. PRIMARY KEY (id) NOT ENFORCED, or use 'op' = 'index'");
        }
        String pipeline = options.get(PIPELINE);
        if (pipeline != null && pipeline.isBlank()) {
            throw new ValidationException(
                    PIPELINE.key() + " is empty: name an ingest pipeline, or leave the option out (the index's "
                            + "index.default_pipeline then applies)");
        }
        if (pipeline != null && op == Op.UPSERT) {
            throw new ValidationException(
                    PIPELINE.key() + " '" + pipeline + "' cannot be used with 'op' = 'upsert': Elasticsearch runs no "
                            + "ingest pipeline for a bulk update; use 'op' = 'index', or set the pipeline as the index's index.final_pipeline");
        }
        for (int k : key) {
            checkTextual(physical.get(k), "PRIMARY KEY column");
        }

        Map<String, LogicalType> columnTypes = new HashMap<>();
        physical.forEach(c -> columnTypes.put(c.getName(), c.getDataType().getLogicalType()));
        String indexOption = OfficialOptions.withDefaultPatterns(options.get(INDEX), columnTypes);
        IndexNameTemplate template;
        try {
            template = IndexNameTemplate.parse(indexOption);
        } catch (IllegalArgumentException e) {
            throw new ValidationException(INDEX.key() + " " + e.getMessage());
        }
        String literal = template.fill("x");
        if (!literal.equals(literal.toLowerCase())
                || literal.startsWith("_")
                || literal.startsWith("-")
                || Stream.of(" ", ",", "*", "\"", "\\", "/", "?", "#", "<", ">", "|")
                        .anyMatch(literal::contains)) {
            throw new ValidationException(
                    INDEX.key() + " '" + indexOption + "' is not a valid Elasticsearch index name: use lowercase, "
                            + "no spaces, commas, * or other reserved characters, not starting with _ or -");
        }
        for (IndexNameTemplate.Placeholder p : template.placeholders()) {
            if (OfficialOptions.isSystemTime(p.name())) {
                if (!p.isDate()) {
                    throw new ValidationException(INDEX.key() + " '" + indexOption + "' names the system time with " + p
                            + " but no date pattern: write it as {" + p.name() + "|yyyy-MM-dd}");
                }
                continue;
            }
            Column column = column(physical, p.name(), INDEX.key() + " '" + indexOption + "' names column " + p.name());
            if (p.isDate()) {
                LogicalType type = column.getDataType().getLogicalType();
                if (!type.is(LogicalTypeFamily.DATETIME) || type.is(LogicalTypeRoot.TIMESTAMP_WITH_TIME_ZONE)) {
                    throw new ValidationException(
                            INDEX.key() + " '" + indexOption + "' formats column " + p.name() + " as a date with "
                                    + p + ", but it is " + type
                                    + ": use a DATE, TIME, TIMESTAMP or TIMESTAMP_LTZ column, or {" + p.name()
                                    + "} for its value");
                }
            } else {
                checkTextual(column, "index name column");
            }
        }
        int routing = -1;
        String routingColumn = options.get(ROUTING);
        if (routingColumn != null) {
            checkTextual(
                    column(physical, routingColumn, ROUTING.key() + " names column " + routingColumn),
                    "routing column");
            routing = names.indexOf(routingColumn);
        }
        RowToDocument.Spec spec = new RowToDocument.Spec(
                indexOption,
                names,
                physical.stream().map(c -> c.getDataType().getLogicalType()).toList(),
                key,
                keyId(options),
                routing,
                op,
                pipeline);
        return new KesDynamicSink(
                sink,
                spec,
                encoding,
                context.getPhysicalRowDataType(),
                context.getObjectIdentifier().asSummaryString(),
                parallelism);
    }

    /** The composite key's id rule; an escaped id needs a delimiter whose first character can be escaped. */
    private static CompositeKeyId keyId(ReadableConfig options) {
        String delimiter = options.get(KEY_DELIMITER);
        boolean escape = options.get(KEY_ESCAPE);
        if (escape && (delimiter.isEmpty() || delimiter.charAt(0) == '\\')) {
            throw new ValidationException(KEY_ESCAPE.key() + " needs a " + KEY_DELIMITER.key()
                    + " that is not empty and does not " + "start with a backslash (it is '" + delimiter
                    + "'): use the default '_' or another text");
        }
        return new CompositeKeyId(delimiter, escape);
    }

    /** {@code fail}, or the dead-letter topic with its brokers and producer settings, each checked. */
    private static FailureHandler failureHandler(ReadableConfig options, Map<String, String> raw) {
        String kind = OfficialOptions.failureHandler(options.get(FAILURE_HANDLER));
        Map<String, String> properties = new HashMap<>();
        raw.forEach((k, v) -> {
            if (k.startsWith(DEAD_LETTER_PROPERTIES_PREFIX)) {
                properties.put(k.substring(DEAD_LETTER_PROPERTIES_PREFIX.length()), v);
            }
        });
        String topic = options.get(DEAD_LETTER_TOPIC);
        String servers = options.get(DEAD_LETTER_BOOTSTRAP_SERVERS);
        if (FAIL.equalsIgnoreCase(kind)) {
            String stray = topic != null
                    ? DEAD_LETTER_TOPIC.key()
                    : servers != null
                            ? DEAD_LETTER_BOOTSTRAP_SERVERS.key()
                            : properties.isEmpty()
                                    ? null
                                    : DEAD_LETTER_PROPERTIES_PREFIX
                                            + properties.keySet().iterator().next();
            if (stray != null) {
                throw new ValidationException(stray + " is set but " + FAILURE_HANDLER.key() + " is '" + kind
                        + "': set '" + FAILURE_HANDLER.key() + "' = '" + DEAD_LETTER
                        + "' to send refused rows to the topic, or remove " + stray);
            }
            return FailureHandler.failJob();
        }
        if (!DEAD_LETTER.equalsIgnoreCase(kind)) {
            throw new ValidationException(
                    FAILURE_HANDLER.key() + " '" + kind + "' is not one of " + FAIL + ", " + DEAD_LETTER);
        }
        if (topic == null || topic.isBlank()) {
            throw new ValidationException(FAILURE_HANDLER.key() + " '" + DEAD_LETTER + "' needs "
                    + DEAD_LETTER_TOPIC.key() + ": the Kafka topic refused rows go to");
        }
        if (servers == null || servers.isBlank()) {
            throw new ValidationException(
                    FAILURE_HANDLER.key() + " '" + DEAD_LETTER + "' needs " + DEAD_LETTER_BOOTSTRAP_SERVERS.key()
                            + ": the Kafka brokers of topic " + topic + ", e.g. localhost:9092");
        }
        for (String managed : List.of("bootstrap.servers", "key.serializer", "value.serializer")) {
            if (properties.containsKey(managed)) {
                throw new ValidationException(DEAD_LETTER_PROPERTIES_PREFIX + managed + " cannot be set: kes sets it"
                        + (managed.equals("bootstrap.servers") ? "; use " + DEAD_LETTER_BOOTSTRAP_SERVERS.key() : ""));
            }
        }
        try {
            Class.forName(
                    "org.apache.kafka.clients.producer.KafkaProducer",
                    false,
                    KesTableSinkFactory.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new ValidationException(
                    FAILURE_HANDLER.key() + " '" + DEAD_LETTER + "' needs the Kafka client (kafka-clients) on the "
                            + "classpath: use kes-sql-connector.jar, which carries it, or add kafka-clients next to the connector");
        }
        return new DeadLetterFailureHandler(servers, properties, topic);
    }

    private static Column column(List<Column> physical, String name, String what) {
        return physical.stream()
                .filter(c -> c.getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new ValidationException(what + ", which the table does not have: its columns are "
                        + physical.stream().map(Column::getName).collect(Collectors.joining(", "))));
    }

    /** Ids, routing and index names are text: a column of raw bytes or a nested type has no plain text form. */
    private static void checkTextual(Column column, String role) {
        LogicalType type = column.getDataType().getLogicalType();
        if (type.is(LogicalTypeFamily.BINARY_STRING)
                || type.is(LogicalTypeFamily.COLLECTION)
                || type.is(LogicalTypeFamily.CONSTRUCTED)
                || type.is(org.apache.flink.table.types.logical.LogicalTypeRoot.RAW)) {
            throw new ValidationException("column " + column.getName() + " (" + type + ") cannot be a " + role
                    + ": use a character string, number, boolean, date or time column");
        }
    }
}
