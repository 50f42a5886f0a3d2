package io.kes.connector.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.ElasticsearchSinkOptions;
import io.kes.connector.internal.OptionText;
import io.kes.connector.testing.OptionCells;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.FallbackKey;
import org.junit.jupiter.api.Test;

/**
 * The SQL names are derived from the sink's keys; users' tables are written with the names below,
 * so a change to the rule or its exceptions that renames one fails here, not in their jobs.
 */
class SqlNamesTest {

    /** Sink key, then the SQL key and the official connectors' keys a table also takes, as users write them today. */
    private static final Map<String, List<String>> WRITTEN_TODAY = new LinkedHashMap<>();

    static {
        WRITTEN_TODAY.put("elasticsearch.hosts", List.of("hosts"));
        WRITTEN_TODAY.put("elasticsearch.username", List.of("username"));
        WRITTEN_TODAY.put("elasticsearch.password", List.of("password"));
        WRITTEN_TODAY.put("elasticsearch.api_key", List.of("api-key"));
        WRITTEN_TODAY.put("elasticsearch.tls_ca_file", List.of("ssl.ca-file"));
        WRITTEN_TODAY.put("elasticsearch.tls_fingerprint", List.of("ssl.certificate-fingerprint"));
        WRITTEN_TODAY.put("elasticsearch.aws_sigv4.region", List.of("aws-sigv4.region"));
        WRITTEN_TODAY.put("elasticsearch.aws_sigv4.service", List.of("aws-sigv4.service"));
        WRITTEN_TODAY.put("elasticsearch.path_prefix", List.of("path-prefix", "connection.path-prefix"));
        WRITTEN_TODAY.put("elasticsearch.gzip", List.of("gzip"));
        WRITTEN_TODAY.put("elasticsearch.durability", List.of("durability"));
        WRITTEN_TODAY.put("elasticsearch.fence_sync_wait", List.of("durability.fence-sync-wait"));
        WRITTEN_TODAY.put("elasticsearch.primary_node_routing", List.of("primary-node-routing"));
        WRITTEN_TODAY.put("elasticsearch.connect_timeout", List.of("connect-timeout", "connection.timeout"));
        WRITTEN_TODAY.put("elasticsearch.socket_timeout", List.of("socket-timeout", "socket.timeout"));
        WRITTEN_TODAY.put("bulk.max_docs", List.of("bulk.max-docs", "sink.bulk-flush.max-actions"));
        WRITTEN_TODAY.put("bulk.max_bytes", List.of("bulk.max-bytes", "sink.bulk-flush.max-size"));
        WRITTEN_TODAY.put("bulk.linger", List.of("bulk.linger", "sink.bulk-flush.interval"));
        WRITTEN_TODAY.put("bulk.coalesce", List.of("bulk.coalesce"));
        WRITTEN_TODAY.put("bulk.max_in_flight", List.of("bulk.max-in-flight", "sink.bulk-flush.max-in-flight-actions"));
        WRITTEN_TODAY.put("bulk.max_queued_bytes", List.of("bulk.max-queued-bytes"));
        WRITTEN_TODAY.put("bulk.max_buffered_bytes", List.of("bulk.max-buffered-bytes"));
        WRITTEN_TODAY.put("bulk.adaptive_concurrency", List.of("bulk.adaptive-concurrency"));
        WRITTEN_TODAY.put("bulk.shard_grouping", List.of("bulk.shard-grouping"));
        WRITTEN_TODAY.put("bulk.topology", List.of("bulk.topology"));
        WRITTEN_TODAY.put("retry.initial_backoff", List.of("retry.initial-backoff", "sink.bulk-flush.backoff.delay"));
        WRITTEN_TODAY.put("retry.max_backoff", List.of("retry.max-backoff"));
        WRITTEN_TODAY.put("retry.max_time", List.of("retry.max-time"));
    }

    @Test
    void everySinkOptionHasTheSqlNamesUsersWriteToday() {
        Map<String, List<String>> derived = new LinkedHashMap<>();
        for (KesTableOptions.SinkOption<?> option : KesTableOptions.SINK_OPTIONS) {
            List<String> keys = new java.util.ArrayList<>(List.of(option.table().key()));
            StreamSupport.stream(option.table().fallbackKeys().spliterator(), false)
                    .map(FallbackKey::getKey)
                    .forEach(keys::add);
            derived.put(option.sink().key(), keys);
        }
        assertThat(derived).containsExactlyEntriesOf(WRITTEN_TODAY);
    }

    @Test
    void aSqlOptionHasItsSinkOptionsTypeAndDefault() {
        for (KesTableOptions.SinkOption<?> option : KesTableOptions.SINK_OPTIONS) {
            if (option.table().key().equals("durability")) {
                continue; // text: aTableTakesDurabilityAsTextForTheSinkToParse
            }
            ConfigOption<?> sink = option.sink();
            assertThat(option.table().defaultValue()).as(option.table().key()).isEqualTo(sink.defaultValue());
            assertThat(OptionCells.type(option.table(), "list"))
                    .as(option.table().key())
                    .isEqualTo(OptionCells.type(sink, "list"));
        }
    }

    /** The sink parses it, so a table takes the spellings the job's YAML does and gets the sink's message. */
    @Test
    void aTableTakesDurabilityAsTextForTheSinkToParse() {
        KesTableOptions.SinkOption<?> durability = KesTableOptions.SINK_OPTIONS.stream()
                .filter(o -> o.sink().key().equals(ElasticsearchSinkOptions.DURABILITY.key()))
                .findFirst()
                .orElseThrow();
        assertThat(OptionCells.type(durability.table(), "list")).isEqualTo("string");
        assertThat(durability.table().defaultValue()).isEqualTo("checkpoint-fence");
        assertThat(OptionCells.type(durability.sink(), "list")).isEqualTo("string");
    }

    /** One description, in the names of the surface that shows it. */
    @Test
    void aSqlDescriptionIsTheSinksWithTheTablesNames() {
        ConfigOption<?> table = KesTableOptions.sqlOption(ElasticsearchSinkOptions.BULK_MAX_QUEUED_BYTES);
        assertThat(OptionText.asWritten(ElasticsearchSinkOptions.BULK_MAX_QUEUED_BYTES))
                .contains("(as `bulk.max_buffered_bytes` counts them)");
        assertThat(OptionText.asWritten(table))
                .isEqualTo(OptionText.asWritten(ElasticsearchSinkOptions.BULK_MAX_QUEUED_BYTES)
                        .replace("bulk.max_buffered_bytes", "bulk.max-buffered-bytes"));
        assertThat(OptionText.asWritten(KesTableOptions.sqlOption(ElasticsearchSinkOptions.TLS_FINGERPRINT)))
                .endsWith("not together with `ssl.ca-file`.");
    }
}
