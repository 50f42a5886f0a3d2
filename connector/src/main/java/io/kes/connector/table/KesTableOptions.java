package io.kes.connector.table;

import io.kes.connector.ElasticsearchSinkOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.FallbackKey;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.factories.FactoryUtil;

/**
 * Every option of a {@code 'connector' = 'kes'} table, in Flink SQL's dotted style. Those that say
 * how a row becomes a document are declared here; the sink's own ({@link #SINK_OPTIONS}) are the
 * declarations of {@link ElasticsearchSinkOptions} under their SQL names ({@link SqlNames}), with
 * the same type, default and description, so the SQL table and the DataStream sink cannot drift
 * apart. Descriptions are written in the Markdown of docs/config-reference.md, which shows them.
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
            .withDescription("Target index or alias, or a name template over the table's columns: `logs-{service}` "
                    + "takes a column's value, `logs-{ts|yyyy.MM.dd}` formats a DATE, TIME, TIMESTAMP or TIMESTAMP_LTZ "
                    + "column in UTC (`{ts|}` takes the official connectors' default pattern of the type), "
                    + "`logs-{now()|yyyy.MM.dd}` the system time (UTC; append-only tables). Names are lowercased.");

    public static final ConfigOption<String> KEY_DELIMITER = ConfigOptions.key("document-id.key-delimiter")
            .stringType()
            .defaultValue("_")
            .withDescription(
                    "With a PRIMARY KEY of several columns: the text between their values in the document id.");

    public static final ConfigOption<Boolean> KEY_ESCAPE = ConfigOptions.key("document-id.key-escape")
            .booleanType()
            .defaultValue(false)
            .withDescription("With a PRIMARY KEY of several columns: escape a backslash and the delimiter's first "
                    + "character inside each value with a backslash, so that two different keys never share an id "
                    + "(joined as is, `('a_b', 'c')` and `('a', 'b_c')` both make `a_b_c`, and one row overwrites the "
                    + "other). Off by default: the ids are then those of Flink's Elasticsearch and OpenSearch "
                    + "connectors, so a job moved from them overwrites its documents. Turning it on for an existing "
                    + "index changes the ids of keys whose values contain the delimiter's first character or a "
                    + "backslash: write such an index anew.");

    public static final ConfigOption<String> ROUTING = ConfigOptions.key("routing")
            .stringType()
            .noDefaultValue()
            .withDescription("A column whose value is the document's `_routing` (kes predicts the shard from it); a "
                    + "row whose routing column is null is routed by its id.");

    public static final ConfigOption<Op> OP = ConfigOptions.key("op")
            .enumType(Op.class)
            .defaultValue(Op.INDEX)
            .withDescription("What INSERT and UPDATE_AFTER rows do: `index` (create or overwrite), `create` "
                    + "(append-only; the first value of an id stays) or `upsert` (merge the row's fields into the "
                    + "document, `doc_as_upsert`; needs a PRIMARY KEY). DELETE rows delete their document, and so do "
                    + "the UPDATE_BEFORE rows the planner sends where the query needs them (a filter over an updating "
                    + "result): the only sign that a key left the result.");

    public static final ConfigOption<String> FORMAT = ConfigOptions.key("format")
            .stringType()
            .defaultValue("json")
            .withDescription("How a row becomes its document: `json`, Flink's JSON format; its `json.*` options apply "
                    + "(e.g. `'json.timestamp-format.standard' = 'ISO-8601'`, which Elasticsearch's date detection "
                    + "recognizes).");

    public static final ConfigOption<String> PIPELINE = ConfigOptions.key("pipeline")
            .stringType()
            .noDefaultValue()
            .withDescription(
                    "The ingest pipeline every row's document goes through (named in each bulk item; DELETE "
                            + "rows run none, as in Elasticsearch; not with `'op' = 'upsert'`, whose bulk updates run none); "
                            + "without it the index's `index.default_pipeline` applies. A pipeline that may set `_index`, "
                            + "`_routing` or `_id` is detected, as for the job's `routes[].pipeline`: its index is written in "
                            + "ordinary bulks, fenced index-wide ([Ingest pipelines](order-and-durability.md#ingest-pipelines)).");

    /** {@code failure-handler} value: the job fails on a refused row. */
    public static final String FAIL = "fail";
    /** {@code failure-handler} value: refused rows go to a Kafka topic. */
    public static final String DEAD_LETTER = "dead-letter";

    public static final ConfigOption<String> FAILURE_HANDLER = ConfigOptions.key("failure-handler")
            .stringType()
            .defaultValue(FAIL)
            .withDescription("What happens to a row Elasticsearch refuses for good (mapping conflict, unparsable "
                    + "value, strict mapping; a 4xx item): `fail`, the job fails naming the row and the reason; "
                    + "`dead-letter`, the row's JSON goes to the Kafka topic `failure-handler.dead-letter.topic` with "
                    + "the job's `kes.*` headers (stage `index`, error type, status, reason, and the Kafka coordinates "
                    + "when the table declares them) and the job goes on; a checkpoint completes only once its dead "
                    + "letters are acknowledged by Kafka.");

    public static final ConfigOption<String> DEAD_LETTER_TOPIC = ConfigOptions.key("failure-handler.dead-letter.topic")
            .stringType()
            .noDefaultValue()
            .withDescription("With `'failure-handler' = 'dead-letter'`: the Kafka topic refused rows go to; required "
                    + "then (create it beforehand where brokers do not auto-create topics).");

    public static final ConfigOption<String> DEAD_LETTER_BOOTSTRAP_SERVERS = ConfigOptions.key(
                    "failure-handler.dead-letter.bootstrap-servers")
            .stringType()
            .noDefaultValue()
            .withDescription("With `'failure-handler' = 'dead-letter'`: the Kafka brokers of the dead-letter topic, "
                    + "e.g. `kafka1:9092,kafka2:9092`; required then.");

    /** Prefix of the dead-letter producer's Kafka client settings. */
    public static final String DEAD_LETTER_PROPERTIES_PREFIX = "failure-handler.dead-letter.properties.";

    /** Not read by key (the factory takes every key under the prefix): declared for its row in the reference. */
    static final ConfigOption<String> DEAD_LETTER_PROPERTIES = ConfigOptions.key(DEAD_LETTER_PROPERTIES_PREFIX + "*")
            .stringType()
            .noDefaultValue()
            .withDescription("With `'failure-handler' = 'dead-letter'`: any Kafka producer setting, passed through, "
                    + "e.g. `failure-handler.dead-letter.properties.security.protocol` = `SASL_SSL`, "
                    + "`...properties.sasl.jaas.config` (kes sets `bootstrap.servers`, the serializers, `acks=all` and "
                    + "idempotence). `kes-sql-connector.jar` carries `kafka-clients` unrelocated (JAAS lines name the "
                    + "usual login modules) without its compression codecs: leave `compression.type` unset.");

    /** How many writers the table runs: Flink's standard option, with what it means for a kes table. */
    public static final ConfigOption<Integer> SINK_PARALLELISM = FactoryUtil.SINK_PARALLELISM.withDescription(
            "Writers of the table (Flink's standard option); unset: the input's parallelism, the writer chained to "
                    + "it (no shuffle). With a PRIMARY KEY the rows reach the writers by id either way; without one, "
                    + "another parallelism adds a round-robin shuffle (each row is its own document, so no order is "
                    + "lost).");

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

    /** Every option of {@link ElasticsearchSinkOptions}, under its SQL name ({@link SqlNames}). */
    public static final List<SinkOption<?>> SINK_OPTIONS = SqlNames.sinkOptions();

    /**
     * The table's option for a sink option whose type it keeps (every one but those {@link SqlNames}
     * takes as text, which the factory never reads itself).
     */
    @SuppressWarnings("unchecked")
    static <T> ConfigOption<T> sqlOption(ConfigOption<T> sinkOption) {
        return (ConfigOption<T>) SINK_OPTIONS.stream()
                .filter(o -> o.sink() == sinkOption)
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException(
                        sinkOption.key() + " has no typed SQL option: the table takes it as text"))
                .table();
    }

    /** The one sink option a table must set. */
    static final ConfigOption<List<String>> HOSTS = sqlOption(ElasticsearchSinkOptions.HOSTS);

    /**
     * Every option of a kes table, in the order docs/config-reference.md lists them: how rows become
     * documents, then the sink's own. The factory's required and optional options are these (and
     * {@link OfficialOptions}); the reference's rows are generated from this list.
     */
    static List<ConfigOption<?>> all() {
        List<ConfigOption<?>> all = new ArrayList<>(List.of(
                HOSTS,
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
                .filter(option -> option != HOSTS)
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
        return SqlNames.replaceKeys(sinkMessage, names);
    }
}
