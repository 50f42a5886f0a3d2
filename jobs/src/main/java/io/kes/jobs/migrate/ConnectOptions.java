package io.kes.jobs.migrate;

import static io.kes.jobs.migrate.ConnectOption.Family.BULK;
import static io.kes.jobs.migrate.ConnectOption.Family.CONNECTION;
import static io.kes.jobs.migrate.ConnectOption.Family.GENERAL;
import static io.kes.jobs.migrate.ConnectOption.Family.TLS;
import static io.kes.jobs.migrate.ConnectOption.Family.TOPICS;

import io.kes.jobs.migrate.ConnectOption.Family;
import io.kes.jobs.migrate.ConnectOption.Handler;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Every option of Confluent's Elasticsearch sink connector (16.x) and of Kafka Connect that a
 * connector config may hold, declared once: what kes makes of it and, where kes differs, why.
 * {@code bin/kes migrate} applies these rows; docs/migration-from-kafka-connect.md is generated from
 * them ({@code MigrationGuideTest}). Options read together (ids, ops, targets, converters,
 * transforms, errors) are {@link #planned}: {@link RoutePlanner} and {@link ErrorPlanner} read them.
 * Order matters only where a prefix row follows the specific rows it would also match.
 */
final class ConnectOptions {

    static final String CONNECTOR_CLASS = "io.confluent.connect.elasticsearch.ElasticsearchSinkConnector";

    private ConnectOptions() {}

    /** The connector and its connection: general, topics, Elasticsearch, TLS, bulks and retries. */
    private static final List<ConnectOption> CONNECTION_ROWS = List.of(
            // The connector
            row(
                    "name",
                    GENERAL,
                    "`job.name`, `kafka.group_id`",
                    "the group becomes `connect-<name>`, Connect's own, "
                            + "so the job starts at the offsets the connector committed",
                    Values::name),
            row("connector.class", GENERAL, "—", "must be " + CONNECTOR_CLASS, Values::connectorClass),
            row(
                    "tasks.max",
                    GENERAL,
                    "`job.parallelism`",
                    "",
                    (m, k, v) -> m.job.set("job", "parallelism", (int) Values.atLeast(m, k, v, 1))),
            row(
                    "type.name",
                    GENERAL,
                    "—",
                    "not carried over: Elasticsearch 8 and 9 have no mapping types",
                    Values.NOTHING),
            row(
                    "config.action.reload",
                    GENERAL,
                    "—",
                    "not carried over: kes reads its config when the job starts",
                    Values.NOTHING),
            // Topics and the Kafka consumer
            planned("topics", TOPICS, "`routes[].topics`", "one route per topic (ids and index per topic)"),
            planned(
                    "topics.regex",
                    TOPICS,
                    "`routes[].topic_pattern`",
                    "a Java regex as in Connect; new topics join within 30 s"),
            row(
                    "consumer.override.group.id",
                    TOPICS,
                    "`kafka.group_id`",
                    "",
                    (m, k, v) -> m.job.set("kafka", "group_id", v)),
            row(
                    "consumer.override.auto.offset.reset",
                    TOPICS,
                    "`kafka.starting_offsets`",
                    "without committed offsets "
                            + "kes starts at the earliest, as Connect's sinks do; `latest` would skip committed offsets in kes "
                            + "and is refused",
                    Values::autoOffsetReset),
            prefix(
                    "consumer.override.",
                    TOPICS,
                    "`kafka.properties`",
                    "passed to kes's Kafka consumers as they are (and its dead-letter producer)",
                    (m, k, v) -> m.job.kafkaProperty(k.substring(18), v)),
            // Connection to Elasticsearch
            row(
                    "connection.url",
                    CONNECTION,
                    "`elasticsearch.hosts`",
                    "a URL without scheme gets `http://`; as in Connect, one `https:` URL makes them all HTTPS",
                    Values::hosts),
            row(
                    "connection.username",
                    CONNECTION,
                    "`elasticsearch.username`",
                    "",
                    Values.carry("elasticsearch", "username")),
            row(
                    "connection.password",
                    CONNECTION,
                    "`elasticsearch.password`",
                    "better `${ES_PASSWORD}` or `${file:/path}`; a Connect config provider reference is refused",
                    Values::password),
            row(
                    "connection.timeout.ms",
                    CONNECTION,
                    "`elasticsearch.connect_timeout`",
                    "kes retries a connection that timed out instead of failing the task",
                    Values.millis("elasticsearch", "connect_timeout")),
            row(
                    "read.timeout.ms",
                    CONNECTION,
                    "`elasticsearch.socket_timeout`",
                    "kes retries a request that timed out (until `retry.max_time`) instead of failing the task",
                    Values.millis("elasticsearch", "socket_timeout")),
            row(
                    "connection.compression",
                    CONNECTION,
                    "`elasticsearch.gzip`",
                    "gzip request bodies",
                    Values.bool("elasticsearch", "gzip")),
            row(
                    "max.connection.idle.time.ms",
                    CONNECTION,
                    "—",
                    "not carried over: kes's HTTP client keeps connections alive by itself",
                    Values.NOTHING),
            row(
                    "elastic.security.protocol",
                    CONNECTION,
                    "—",
                    "`SSL` reads `elastic.https.ssl.*`; `PLAINTEXT` ignores them, as in Connect",
                    Values::securityProtocol),
            prefix(
                    "proxy.",
                    CONNECTION,
                    "—",
                    "refused when set: kes connects to Elasticsearch directly (a reverse "
                            + "proxy in front of it works: `elasticsearch.path_prefix`)",
                    Values.refusedIfSet()),
            prefix(
                    "kerberos.",
                    CONNECTION,
                    "—",
                    "refused when set: kes authenticates with basic auth or an API key",
                    Values.refusedIfSet()),
            // TLS
            row(
                    "elastic.https.ssl.truststore.location",
                    TLS,
                    "`elasticsearch.tls_ca_file`",
                    "kes trusts a PEM CA file: a "
                            + "PEM trust store is carried over, a JKS or PKCS12 one refused with the `keytool` line that exports "
                            + "its CA",
                    Values.NOTHING),
            row("elastic.https.ssl.truststore.type", TLS, "—", "see `truststore.location`", Values.NOTHING),
            row("elastic.https.ssl.truststore.password", TLS, "—", "not needed for a PEM CA file", Values.NOTHING),
            row(
                    "elastic.https.ssl.keystore.location",
                    TLS,
                    "—",
                    "refused when set: kes presents no client "
                            + "certificate; authenticate with `elasticsearch.username`/`password` or `api_key`",
                    Values.refusedIfSet()),
            row(
                    "elastic.https.ssl.endpoint.identification.algorithm",
                    TLS,
                    "—",
                    "an empty value (no host name "
                            + "check) is refused: kes always verifies that the certificate names the host",
                    Values::endpoint),
            prefix(
                    "elastic.https.ssl.",
                    TLS,
                    "—",
                    "not carried over (key store passwords, protocols, ciphers): kes uses the JVM's TLS defaults",
                    Values.NOTHING),
            // Bulks and retries
            row(
                    "batch.size",
                    BULK,
                    "`bulk.max_docs`",
                    "kes buffers per shard: a bulk holds up to this many documents of one shard",
                    (m, k, v) -> m.job.set("bulk", "max_docs", (int) Values.atLeast(m, k, v, 1))),
            row(
                    "bulk.size.bytes",
                    BULK,
                    "`bulk.max_bytes`",
                    "`-1` (no limit) is refused: kes's bulks are at most 100mb",
                    Values::bulkBytes),
            row("linger.ms", BULK, "`bulk.linger`", "", Values.millis("bulk", "linger")),
            row(
                    "max.in.flight.requests",
                    BULK,
                    "`bulk.max_in_flight`",
                    "kes counts bulks in flight per node and writer, Connect per task",
                    (m, k, v) -> m.job.set("bulk", "max_in_flight", (int) Values.atLeast(m, k, v, 1))),
            row(
                    "max.buffered.records",
                    BULK,
                    "—",
                    "not carried over: kes bounds its buffers in bytes (`bulk.max_buffered_bytes`)",
                    Values.NOTHING),
            row(
                    "flush.timeout.ms",
                    BULK,
                    "—",
                    "not carried over: a kes checkpoint waits for its writes, bounded by `retry.max_time`",
                    Values.NOTHING),
            row(
                    "flush.synchronously",
                    BULK,
                    "—",
                    "not carried over: kes's index names never depend on flush order",
                    Values.NOTHING),
            row(
                    "retry.backoff.ms",
                    BULK,
                    "`retry.initial_backoff`",
                    "doubling with jitter, as in Connect",
                    Values.millis("retry", "initial_backoff")),
            row(
                    "max.retries",
                    BULK,
                    "`retry.max_time`",
                    "kes retries for a time, not a count: the time N doubling "
                            + "backoffs take; after it the job restarts from its last checkpoint (Connect's task fails)",
                    Values::maxRetries));

    /** Every row: these, then how records become documents ({@link RecordOptions}). */
    static final List<ConnectOption> ALL =
            Stream.concat(CONNECTION_ROWS.stream(), RecordOptions.ROWS.stream()).toList();

    static Optional<ConnectOption> find(String key) {
        return ALL.stream().filter(o -> o.matches(key)).findFirst();
    }

    static ConnectOption row(String key, Family family, String kes, String note, Handler handler) {
        return new ConnectOption(key, false, family, kes, note, handler);
    }

    static ConnectOption prefix(String key, Family family, String kes, String note, Handler handler) {
        return new ConnectOption(key, true, family, kes, note, handler);
    }

    static ConnectOption planned(String key, Family family, String kes, String note) {
        return planned(key, family, kes, note, false);
    }

    static ConnectOption planned(String key, Family family, String kes, String note, boolean prefix) {
        return new ConnectOption(key, prefix, family, kes, note, Values.NOTHING);
    }
}
