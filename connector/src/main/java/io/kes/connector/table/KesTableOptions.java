package io.kes.connector.table;

import static io.kes.connector.ElasticsearchSinkOptions.*;

import io.kes.connector.ElasticsearchSinkOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.FallbackKey;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.factories.FactoryUtil;

/**
 * Every option of a {@code 'connector' = 'kes'} table, declared once, in Flink SQL's dotted style.
 * The options of the sink itself ({@link #SINK_OPTIONS}) take their defaults and meaning from
 * {@link io.kes.connector.ElasticsearchSinkOptions}, so the SQL table and the DataStream sink cannot
 * drift apart; the rest say how a row becomes a document.
 */
@PublicEvolving
public final class KesTableOptions {

    private KesTableOptions() {}

    /** What INSERT and UPDATE_AFTER rows do to their document. */
    public enum Op {
        /** Create or overwrite the document (default). */
        INDEX,
        /** Create only: Elasticsearch answers 409 for an existing id and the first row's value stays. Append-only. */
        CREATE,
        /** Merge the row's fields into the document, creating it when missing (doc_as_upsert). Needs a PRIMARY KEY. */
        UPSERT
    }

    // How rows become documents.

    public static final ConfigOption<String> INDEX = ConfigOptions.key("index")
            .stringType()
            .noDefaultValue()
            .withDescription(
                    "Target index or alias, or a name template over the table's columns: logs-{service} takes a "
                            + "column's value, logs-{ts|yyyy.MM.dd} formats a DATE, TIME, TIMESTAMP or TIMESTAMP_LTZ column (UTC), "
                            + "logs-{now()|yyyy.MM.dd} the system time (UTC; append-only). Names are lowercased. Required.");

    public static final ConfigOption<String> KEY_DELIMITER = ConfigOptions.key("document-id.key-delimiter")
            .stringType()
            .defaultValue("_")
            .withDescription(
                    "With a PRIMARY KEY of several columns: the text between their values in the document id.");

    public static final ConfigOption<Boolean> KEY_ESCAPE = ConfigOptions.key("document-id.key-escape")
            .booleanType()
            .defaultValue(false)
            .withDescription(
                    "With a PRIMARY KEY of several columns: escape a backslash and the delimiter's first character "
                            + "inside each value with a backslash, so that two different keys never make the same id (joined as is, "
                            + "('a_b', 'c') and ('a', 'b_c') both make a_b_c). Off by default: the ids are then those of Flink's "
                            + "Elasticsearch and OpenSearch connectors. Turning it on changes the ids of keys whose values contain "
                            + "the delimiter's first character or a backslash.");

    public static final ConfigOption<String> ROUTING = ConfigOptions.key("routing")
            .stringType()
            .noDefaultValue()
            .withDescription("A column whose value is the document's _routing (kes predicts the shard from it). "
                    + "A row whose routing column is null is routed by its id.");

    public static final ConfigOption<Op> OP = ConfigOptions.key("op")
            .enumType(Op.class)
            .defaultValue(Op.INDEX)
            .withDescription("What INSERT and UPDATE_AFTER rows do: index (create or overwrite), create (append-only; "
                    + "existing ids keep their first value) or upsert (merge the row's fields into the document; needs a "
                    + "PRIMARY KEY). DELETE rows delete their document, and so do the UPDATE_BEFORE rows the planner sends where the "
                    + "query needs them (a filter over an updating result): the only sign that a key left the result.");

    public static final ConfigOption<String> FORMAT = ConfigOptions.key("format")
            .stringType()
            .defaultValue("json")
            .withDescription(
                    "How a row is serialized into its document: json (Flink's JSON format; its json.* options apply).");

    public static final ConfigOption<String> PIPELINE = ConfigOptions.key("pipeline")
            .stringType()
            .noDefaultValue()
            .withDescription(
                    "The ingest pipeline every row's document goes through (named in each bulk item; DELETE rows run none, as "
                            + "in Elasticsearch; not with 'op' = 'upsert', whose bulk updates run none). Without it the index's index.default_pipeline applies. A pipeline "
                            + "that may set _index, _routing or _id is detected: its index is written in ordinary bulks, fenced index-wide.");

    /** {@code failure-handler} value: the job fails on a refused row. */
    public static final String FAIL = "fail";
    /** {@code failure-handler} value: refused rows go to a Kafka topic. */
    public static final String DEAD_LETTER = "dead-letter";

    public static final ConfigOption<String> FAILURE_HANDLER = ConfigOptions.key("failure-handler")
            .stringType()
            .defaultValue(FAIL)
            .withDescription(
                    "What happens to a row Elasticsearch refuses for good (mapping conflict, unparsable value, strict "
                            + "mapping): fail, the job fails naming the row; dead-letter, the row's JSON goes to the Kafka topic "
                            + "failure-handler.dead-letter.topic with kes.* headers saying why, and the job goes on (a checkpoint completes "
                            + "only once its dead letters are in Kafka).");

    public static final ConfigOption<String> DEAD_LETTER_TOPIC = ConfigOptions.key("failure-handler.dead-letter.topic")
            .stringType()
            .noDefaultValue()
            .withDescription(
                    "With 'failure-handler' = 'dead-letter': the Kafka topic refused rows go to. Required then.");

    public static final ConfigOption<String> DEAD_LETTER_BOOTSTRAP_SERVERS = ConfigOptions.key(
                    "failure-handler.dead-letter.bootstrap-servers")
            .stringType()
            .noDefaultValue()
            .withDescription("With 'failure-handler' = 'dead-letter': the Kafka brokers of the dead-letter topic, e.g. "
                    + "kafka1:9092,kafka2:9092. Required then. Producer settings (security: security.protocol, sasl.*, ssl.*) go in "
                    + "failure-handler.dead-letter.properties.<kafka key>.");

    /** Prefix of the dead-letter producer's Kafka client settings. */
    public static final String DEAD_LETTER_PROPERTIES_PREFIX = "failure-handler.dead-letter.properties.";

    // The sink's own options: the same meaning and defaults as the DataStream sink's.

    public static final ConfigOption<List<String>> TABLE_HOSTS = ConfigOptions.key("hosts")
            .stringType()
            .asList()
            .noDefaultValue()
            .withDescription(
                    "Elasticsearch HTTP endpoints, separated by ';', e.g. http://es1:9200;http://es2:9200. Required.");

    public static final ConfigOption<String> TABLE_USERNAME =
            ConfigOptions.key("username").stringType().noDefaultValue().withDescription(USERNAME.description());

    public static final ConfigOption<String> TABLE_PASSWORD =
            ConfigOptions.key("password").stringType().noDefaultValue().withDescription(PASSWORD.description());

    public static final ConfigOption<String> TABLE_API_KEY =
            ConfigOptions.key("api-key").stringType().noDefaultValue().withDescription(API_KEY.description());

    public static final ConfigOption<String> TABLE_SSL_CA_FILE =
            ConfigOptions.key("ssl.ca-file").stringType().noDefaultValue().withDescription(TLS_CA_FILE.description());

    public static final ConfigOption<String> TABLE_SSL_FINGERPRINT = ConfigOptions.key("ssl.certificate-fingerprint")
            .stringType()
            .noDefaultValue()
            .withDescription(TLS_FINGERPRINT.description());

    public static final ConfigOption<String> TABLE_PATH_PREFIX = ConfigOptions.key("path-prefix")
            .stringType()
            .noDefaultValue()
            .withFallbackKeys("connection.path-prefix")
            .withDescription(PATH_PREFIX.description());

    public static final ConfigOption<Boolean> TABLE_GZIP = ConfigOptions.key("gzip")
            .booleanType()
            .defaultValue(GZIP.defaultValue())
            .withDescription(GZIP.description());

    /** Text, handed to the sink as text: the sink's parse takes the same spellings and says the same as for the job's YAML. */
    public static final ConfigOption<String> TABLE_DURABILITY = ConfigOptions.key("durability")
            .stringType()
            .defaultValue(DURABILITY.defaultValue().value())
            .withDescription(DURABILITY.description());

    public static final ConfigOption<Duration> TABLE_FENCE_SYNC_WAIT = ConfigOptions.key("durability.fence-sync-wait")
            .durationType()
            .defaultValue(FENCE_SYNC_WAIT.defaultValue())
            .withDescription(FENCE_SYNC_WAIT.description());

    public static final ConfigOption<Boolean> TABLE_PRIMARY_NODE_ROUTING = ConfigOptions.key("primary-node-routing")
            .booleanType()
            .defaultValue(PRIMARY_NODE_ROUTING.defaultValue())
            .withDescription(PRIMARY_NODE_ROUTING.description());

    public static final ConfigOption<Duration> TABLE_CONNECT_TIMEOUT = ConfigOptions.key("connect-timeout")
            .durationType()
            .defaultValue(CONNECT_TIMEOUT.defaultValue())
            .withFallbackKeys("connection.timeout")
            .withDescription(CONNECT_TIMEOUT.description());

    public static final ConfigOption<Duration> TABLE_SOCKET_TIMEOUT = ConfigOptions.key("socket-timeout")
            .durationType()
            .defaultValue(SOCKET_TIMEOUT.defaultValue())
            .withFallbackKeys("socket.timeout")
            .withDescription(SOCKET_TIMEOUT.description());

    public static final ConfigOption<Integer> TABLE_BULK_MAX_DOCS = ConfigOptions.key("bulk.max-docs")
            .intType()
            .defaultValue(BULK_MAX_DOCS.defaultValue())
            .withFallbackKeys("sink.bulk-flush.max-actions")
            .withDescription(BULK_MAX_DOCS.description());

    public static final ConfigOption<MemorySize> TABLE_BULK_MAX_BYTES = ConfigOptions.key("bulk.max-bytes")
            .memoryType()
            .defaultValue(BULK_MAX_BYTES.defaultValue())
            .withFallbackKeys("sink.bulk-flush.max-size")
            .withDescription(BULK_MAX_BYTES.description());

    public static final ConfigOption<Duration> TABLE_BULK_LINGER = ConfigOptions.key("bulk.linger")
            .durationType()
            .defaultValue(BULK_LINGER.defaultValue())
            .withFallbackKeys("sink.bulk-flush.interval")
            .withDescription(BULK_LINGER.description());

    public static final ConfigOption<Duration> TABLE_BULK_COALESCE = ConfigOptions.key("bulk.coalesce")
            .durationType()
            .defaultValue(BULK_COALESCE.defaultValue())
            .withDescription(BULK_COALESCE.description());

    public static final ConfigOption<Integer> TABLE_BULK_MAX_IN_FLIGHT = ConfigOptions.key("bulk.max-in-flight")
            .intType()
            .defaultValue(BULK_MAX_IN_FLIGHT.defaultValue())
            .withFallbackKeys("sink.bulk-flush.max-in-flight-actions")
            .withDescription(BULK_MAX_IN_FLIGHT.description());

    public static final ConfigOption<MemorySize> TABLE_BULK_MAX_QUEUED_BYTES = ConfigOptions.key(
                    "bulk.max-queued-bytes")
            .memoryType()
            .defaultValue(BULK_MAX_QUEUED_BYTES.defaultValue())
            .withDescription(BULK_MAX_QUEUED_BYTES.description());

    public static final ConfigOption<MemorySize> TABLE_BULK_MAX_BUFFERED_BYTES = ConfigOptions.key(
                    "bulk.max-buffered-bytes")
            .memoryType()
            .defaultValue(BULK_MAX_BUFFERED_BYTES.defaultValue())
            .withDescription(BULK_MAX_BUFFERED_BYTES.description());

    public static final ConfigOption<Boolean> TABLE_BULK_ADAPTIVE_CONCURRENCY = ConfigOptions.key(
                    "bulk.adaptive-concurrency")
            .booleanType()
            .defaultValue(BULK_ADAPTIVE_CONCURRENCY.defaultValue())
            .withDescription(BULK_ADAPTIVE_CONCURRENCY.description());

    public static final ConfigOption<Boolean> TABLE_BULK_SHARD_GROUPING = ConfigOptions.key("bulk.shard-grouping")
            .booleanType()
            .defaultValue(SHARD_GROUPING.defaultValue())
            .withDescription(SHARD_GROUPING.description());

    public static final ConfigOption<ElasticsearchSinkOptions.Topology> TABLE_BULK_TOPOLOGY = ConfigOptions.key(
                    "bulk.topology")
            .enumType(ElasticsearchSinkOptions.Topology.class)
            .defaultValue(TOPOLOGY.defaultValue())
            .withDescription(TOPOLOGY.description());

    public static final ConfigOption<Duration> TABLE_RETRY_INITIAL_BACKOFF = ConfigOptions.key("retry.initial-backoff")
            .durationType()
            .defaultValue(RETRY_INITIAL_BACKOFF.defaultValue())
            .withFallbackKeys("sink.bulk-flush.backoff.delay")
            .withDescription(RETRY_INITIAL_BACKOFF.description());

    public static final ConfigOption<Duration> TABLE_RETRY_MAX_BACKOFF = ConfigOptions.key("retry.max-backoff")
            .durationType()
            .defaultValue(RETRY_MAX_BACKOFF.defaultValue())
            .withDescription(RETRY_MAX_BACKOFF.description());

    public static final ConfigOption<Duration> TABLE_RETRY_MAX_TIME = ConfigOptions.key("retry.max-time")
            .durationType()
            .defaultValue(RETRY_MAX_TIME.defaultValue())
            .withDescription(RETRY_MAX_TIME.description());

    /**
     * How many writers the table runs (Flink's standard option). Unset: its input's parallelism,
     * so that without a PRIMARY KEY the writer is chained to its input (no shuffle). With a PRIMARY
     * KEY the rows are hash-partitioned by id to the writers either way; without one, a parallelism
     * other than the input's puts a round-robin shuffle in between (every row is its own document,
     * so no order is lost).
     */
    public static final ConfigOption<Integer> SINK_PARALLELISM = FactoryUtil.SINK_PARALLELISM;

    /** A table option and the sink option it sets. */
    public record SinkOption<T>(ConfigOption<T> table, ConfigOption<T> sink) {
        void copy(ReadableConfig from, Configuration to) {
            from.getOptional(table).ifPresent(value -> to.set(sink, value));
        }

        /** The key the table gave this option under: its own, else the official fallback key it used. */
        String writtenKey(Map<String, String> written) {
            if (written.containsKey(table.key())) {
                return table.key();
            }
            for (FallbackKey fallback : table.fallbackKeys()) {
                if (written.containsKey(fallback.getKey())) {
                    return fallback.getKey();
                }
            }
            return table.key();
        }
    }

    /** Every option of {@link io.kes.connector.ElasticsearchSinkOptions}, under its SQL name. */
    public static final List<SinkOption<?>> SINK_OPTIONS = List.of(
            new SinkOption<>(TABLE_HOSTS, HOSTS),
            new SinkOption<>(TABLE_USERNAME, USERNAME),
            new SinkOption<>(TABLE_PASSWORD, PASSWORD),
            new SinkOption<>(TABLE_API_KEY, API_KEY),
            new SinkOption<>(TABLE_SSL_CA_FILE, TLS_CA_FILE),
            new SinkOption<>(TABLE_SSL_FINGERPRINT, TLS_FINGERPRINT),
            new SinkOption<>(TABLE_PATH_PREFIX, PATH_PREFIX),
            new SinkOption<>(TABLE_GZIP, GZIP),
            new SinkOption<>(
                    TABLE_DURABILITY,
                    ConfigOptions.key(DURABILITY.key()).stringType().noDefaultValue()),
            new SinkOption<>(TABLE_FENCE_SYNC_WAIT, FENCE_SYNC_WAIT),
            new SinkOption<>(TABLE_PRIMARY_NODE_ROUTING, PRIMARY_NODE_ROUTING),
            new SinkOption<>(TABLE_CONNECT_TIMEOUT, CONNECT_TIMEOUT),
            new SinkOption<>(TABLE_SOCKET_TIMEOUT, SOCKET_TIMEOUT),
            new SinkOption<>(TABLE_BULK_MAX_DOCS, BULK_MAX_DOCS),
            new SinkOption<>(TABLE_BULK_MAX_BYTES, BULK_MAX_BYTES),
            new SinkOption<>(TABLE_BULK_LINGER, BULK_LINGER),
            new SinkOption<>(TABLE_BULK_COALESCE, BULK_COALESCE),
            new SinkOption<>(TABLE_BULK_MAX_IN_FLIGHT, BULK_MAX_IN_FLIGHT),
            new SinkOption<>(TABLE_BULK_MAX_QUEUED_BYTES, BULK_MAX_QUEUED_BYTES),
            new SinkOption<>(TABLE_BULK_MAX_BUFFERED_BYTES, BULK_MAX_BUFFERED_BYTES),
            new SinkOption<>(TABLE_BULK_ADAPTIVE_CONCURRENCY, BULK_ADAPTIVE_CONCURRENCY),
            new SinkOption<>(TABLE_BULK_SHARD_GROUPING, SHARD_GROUPING),
            new SinkOption<>(TABLE_BULK_TOPOLOGY, TOPOLOGY),
            new SinkOption<>(TABLE_RETRY_INITIAL_BACKOFF, RETRY_INITIAL_BACKOFF),
            new SinkOption<>(TABLE_RETRY_MAX_BACKOFF, RETRY_MAX_BACKOFF),
            new SinkOption<>(TABLE_RETRY_MAX_TIME, RETRY_MAX_TIME));

    /**
     * Every option of a kes table, in the order docs/config-reference.md lists them: how rows become
     * documents, then the sink's own. The factory's required and optional options are these (and
     * {@link OfficialOptions}); the reference's rows are generated from this list.
     */
    static List<ConfigOption<?>> all() {
        List<ConfigOption<?>> all = new ArrayList<>(List.of(
                TABLE_HOSTS,
                INDEX,
                KEY_DELIMITER,
                KEY_ESCAPE,
                ROUTING,
                OP,
                FORMAT,
                PIPELINE,
                FAILURE_HANDLER,
                DEAD_LETTER_TOPIC,
                DEAD_LETTER_BOOTSTRAP_SERVERS,
                SINK_PARALLELISM));
        SINK_OPTIONS.stream()
                .map(SinkOption::table)
                .filter(option -> option != TABLE_HOSTS)
                .forEach(all::add);
        return all;
    }

    /** The table options as the DataStream sink knows them. */
    static Configuration sinkConfiguration(ReadableConfig tableOptions) {
        Configuration sink = new Configuration();
        for (SinkOption<?> option : SINK_OPTIONS) {
            option.copy(tableOptions, sink);
        }
        return sink;
    }

    /**
     * A message of the sink's validation with its option keys ({@code bulk.max_docs}) turned into
     * the table's as {@code written} ({@code bulk.max-docs}, or Flink's {@code sink.bulk-flush.max-actions}
     * where the table gave that fallback key), so it names the option the user can change.
     */
    static String inTableTerms(String sinkMessage, Map<String, String> written) {
        Map<String, String> names = new HashMap<>();
        SINK_OPTIONS.forEach(o -> names.put(o.sink().key(), o.writtenKey(written)));
        // One pass, longest key first: no key is replaced inside another's replacement.
        Pattern keys = Pattern.compile(names.keySet().stream()
                .sorted(Comparator.comparingInt(String::length).reversed())
                .map(Pattern::quote)
                .collect(Collectors.joining("|")));
        return keys.matcher(sinkMessage).replaceAll(m -> Matcher.quoteReplacement(names.get(m.group())));
    }
}
