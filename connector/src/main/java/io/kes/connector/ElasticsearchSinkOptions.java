package io.kes.connector;

import java.time.Duration;
import java.util.List;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.description.Formatter;

/**
 * Every option of the sink, declared once with its default and meaning. The builder's setters, the
 * job's YAML ({@code elasticsearch:}, {@code bulk:}, {@code retry:} sections use these keys) and
 * the config reference all come from here; {@link #all()} lists them, so nothing has to find them by
 * reflection.
 */
@PublicEvolving
public final class ElasticsearchSinkOptions {

    private ElasticsearchSinkOptions() {}

    public static final ConfigOption<List<String>> HOSTS = ConfigOptions.key("elasticsearch.hosts")
            .stringType()
            .asList()
            .noDefaultValue()
            .withDescription(
                    "Elasticsearch HTTP endpoints, e.g. http://localhost:9200. Requests are spread over them.");

    public static final ConfigOption<String> USERNAME = ConfigOptions.key("elasticsearch.username")
            .stringType()
            .noDefaultValue()
            .withDescription("Basic auth user. Give the password with elasticsearch.password.");

    public static final ConfigOption<String> PASSWORD = ConfigOptions.key("elasticsearch.password")
            .stringType()
            .noDefaultValue()
            .withDescription("Basic auth password.");

    public static final ConfigOption<String> API_KEY = ConfigOptions.key("elasticsearch.api_key")
            .stringType()
            .noDefaultValue()
            .withDescription(
                    "API key (the base64 'encoded' value Elasticsearch returns), sent as 'Authorization: ApiKey ...'.");

    public static final ConfigOption<String> TLS_CA_FILE = ConfigOptions.key("elasticsearch.tls_ca_file")
            .stringType()
            .noDefaultValue()
            .withDescription(
                    "PEM file with the CA certificate(s) that signed Elasticsearch's HTTP certificate "
                            + "(e.g. config/certs/http_ca.crt of a secured node). Without it the JVM's default trust store is used.");

    public static final ConfigOption<String> TLS_FINGERPRINT = ConfigOptions.key("elasticsearch.tls_fingerprint")
            .stringType()
            .noDefaultValue()
            .withDescription(
                    "SHA-256 fingerprint (hex, colons allowed) of a certificate in Elasticsearch's chain (the node's "
                            + "own or a CA above it), as Elasticsearch prints it at first start; the chain must validate up to that "
                            + "certificate, the only one trusted.");

    public static final ConfigOption<String> PATH_PREFIX = ConfigOptions.key("elasticsearch.path_prefix")
            .stringType()
            .noDefaultValue()
            .withDescription("Path prefix when Elasticsearch sits behind a proxy, e.g. /es.");

    public static final ConfigOption<Boolean> GZIP = ConfigOptions.key("elasticsearch.gzip")
            .booleanType()
            .defaultValue(false)
            .withDescription(
                    "Send bulk bodies gzip-compressed (Content-Encoding: gzip). Saves network, costs CPU on both sides. "
                            + "Elasticsearch does not accept zstd request bodies.");

    public static final ConfigOption<Durability> DURABILITY = ConfigOptions.key("elasticsearch.durability")
            .enumType(Durability.class)
            .defaultValue(Durability.CHECKPOINT_FENCE)
            .withDescription(
                    "checkpoint-fence: a checkpoint completes only once the translog of every shard written before it "
                            + "is fsynced (see elasticsearch.fence_sync_wait) and no shard's primary term moved since it acknowledged "
                            + "writes; else the job replays from the previous checkpoint (for async-translog indices). "
                            + "request: rely on Elasticsearch's per-request translog fsync; checkpoints only wait for acknowledgements.");

    public static final ConfigOption<Duration> FENCE_SYNC_WAIT = ConfigOptions.key("elasticsearch.fence_sync_wait")
            .durationType()
            .defaultValue(Duration.ofSeconds(10))
            .withDescription(
                    "With the checkpoint fence: how long a checkpoint may wait for Elasticsearch's own translog fsync "
                            + "(every index.translog.sync_interval, 5 s by default) to cover the writes before its barrier. Indices that "
                            + "sync less often, or do not catch up in time, are made durable with _flush instead, a Lucene commit that "
                            + "costs Elasticsearch more CPU. Writing goes on during the wait either way; only the checkpoint waits.");

    public static final ConfigOption<Boolean> PRIMARY_NODE_ROUTING = ConfigOptions.key(
                    "elasticsearch.primary_node_routing")
            .booleanType()
            .defaultValue(true)
            .withDescription(
                    "Send each single-shard bulk straight to the node that holds the shard's primary, so that no other node "
                            + "coordinates it (the documents cross the network once; measured on three nodes: 1.2-1.3x the docs/s). Node addresses "
                            + "come from _nodes/http, shard locations from the routing table, refreshed every 30 s; a node is used once it answered "
                            + "at its published address, else its shards' bulks go to elasticsearch.hosts, as they always do with a "
                            + "path_prefix (a proxy) or without the monitor cluster privilege.");

    public static final ConfigOption<Duration> CONNECT_TIMEOUT = ConfigOptions.key("elasticsearch.connect_timeout")
            .durationType()
            .defaultValue(Duration.ofSeconds(5))
            .withDescription("How long opening a connection to a node may take before the request is retried.");

    public static final ConfigOption<Duration> SOCKET_TIMEOUT = ConfigOptions.key("elasticsearch.socket_timeout")
            .durationType()
            .defaultValue(Duration.ofSeconds(60))
            .withDescription("How long one request may wait for an answer before it is retried.");

    public static final ConfigOption<Integer> BULK_MAX_DOCS = ConfigOptions.key("bulk.max_docs")
            .intType()
            .defaultValue(1000)
            .withDescription("A slot's buffer is sent as one bulk when it holds this many documents.");

    public static final ConfigOption<MemorySize> BULK_MAX_BYTES = ConfigOptions.key("bulk.max_bytes")
            .memoryType()
            .defaultValue(MemorySize.parse("1mb"))
            .withDescription("A slot's buffer is sent as one bulk when its body reaches this size. "
                    + "About 1 MB single-shard bulks beat 10 MB ones in the seed measurements.");

    public static final ConfigOption<Duration> BULK_LINGER = ConfigOptions.key("bulk.linger")
            .durationType()
            .defaultValue(Duration.ofMillis(1000))
            .withDescription("A buffer that is not full is sent at the latest this long after its first document, once "
                    + "its node has a free place in flight (while the node has none it keeps filling). Usually a buffer "
                    + "goes much sooner: see bulk.coalesce.");

    public static final ConfigOption<Duration> BULK_COALESCE = ConfigOptions.key("bulk.coalesce")
            .durationType()
            .defaultValue(Duration.ofMillis(5))
            .withDescription("A buffer that is not full goes this long after its first document once neither its node "
                    + "nor its slot has a bulk of this writer in flight, so at low and moderate load documents go out "
                    + "within a round trip; while the node is busy the buffer keeps filling (under load bulks fill by "
                    + "backpressure). 0: at once; set to bulk.linger to wait out the linger instead.");

    public static final ConfigOption<Integer> BULK_MAX_IN_FLIGHT = ConfigOptions.key("bulk.max_in_flight")
            .intType()
            .defaultValue(4)
            .withDescription(
                    "Bulk requests one writer subtask keeps open at once per node it writes to (including ones waiting "
                            + "to be retried); bulks whose node is not known (mixed bulks, primary-node routing off, primaries not located "
                            + "yet) share one more such budget. A full buffer whose node has none free waits in that node's queue "
                            + "(see bulk.max_queued_bytes) while the writer goes on with the other nodes' documents, so a stalled node "
                            + "holds only its own share.");

    public static final ConfigOption<MemorySize> BULK_MAX_QUEUED_BYTES = ConfigOptions.key("bulk.max_queued_bytes")
            .memoryType()
            .defaultValue(MemorySize.parse("16mb"))
            .withDescription(
                    "Full buffers waiting for their node's in-flight budget, in bytes of heap per writer subtask (as "
                            + "bulk.max_buffered_bytes counts them). Beyond it the writer blocks: backpressure reaches Kafka. It sets "
                            + "how long one node may stall before the others wait too. 0 blocks as soon as a buffer has to wait.");

    public static final ConfigOption<MemorySize> BULK_MAX_BUFFERED_BYTES = ConfigOptions.key("bulk.max_buffered_bytes")
            .memoryType()
            .defaultValue(MemorySize.parse("32mb"))
            .withDescription(
                    "The writer's buffers together, in bytes of heap per writer subtask: the bulk bodies and the "
                            + "operations they keep for responses, retries and failure handling (about twice the bodies' size). Past it the "
                            + "writer sends its largest buffer at once, before it is full, so memory stays bounded however many shards "
                            + "and indices a writer sees. A writer's documents take at most max_buffered_bytes + max_queued_bytes + "
                            + "(nodes + 1) x max_in_flight bulks in flight (docs/operations.md, \"Topology and memory\").");

    public static final ConfigOption<Boolean> BULK_ADAPTIVE_CONCURRENCY = ConfigOptions.key("bulk.adaptive_concurrency")
            .booleanType()
            .defaultValue(false)
            .withDescription(
                    "Adapt each node's in-flight limit to its answers, between 1 and bulk.max_in_flight (additive "
                            + "increase, multiplicative decrease, as Vector's adaptive request concurrency): cut to 0.9x on a 429, "
                            + "rejected items or a latency jump, raised by one per round trip while latency stays at its moving "
                            + "baseline. Off: every node gets bulk.max_in_flight.");

    public static final ConfigOption<Boolean> SHARD_GROUPING = ConfigOptions.key("bulk.shard_grouping")
            .booleanType()
            .defaultValue(true)
            .withDescription("Group documents by the shard they land on and send single-shard bulks. "
                    + "Off sends mixed bulks, as other sinks do (for comparison).");

    /** How documents reach the bulk writers; see {@link #TOPOLOGY}. */
    public enum Topology {
        /** Each writer runs in its input's subtask and buffers every shard it gets documents for. */
        CHAINED,
        /** Documents are keyed by shard slot before the writers, so each slot is buffered in one writer. */
        KEYED,
        /** Keyed from {@value ElasticsearchSinkOptions#KEYED_FROM_WRITERS} writers up (or when the parallelism is left to the cluster), chained below. */
        AUTO;

        /** The config value, as Flink's enum options parse and print it. */
        @Override
        public String toString() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** {@link Topology#AUTO} keys by slot from this many writers up. */
    public static final int KEYED_FROM_WRITERS = 4;

    public static final ConfigOption<Topology> TOPOLOGY = ConfigOptions.key("bulk.topology")
            .enumType(Topology.class)
            .defaultValue(Topology.AUTO)
            .withDescription(
                    "keyed: a router chained to the input predicts each document's (index, shard) slot and sends it "
                            + "over the network to the one writer subtask that owns the slot, so every shard is buffered once and its "
                            + "bulks fill whatever the parallelism (one id always reaches one writer at a time, so per-id order holds); "
                            + "the exchange costs client CPU per document. chained: each writer runs in its input's subtask with no "
                            + "exchange and buffers every shard it sees: parallelism x shards buffers, each filling at 1/(parallelism x "
                            + "shards) of the stream, and memory that grows with both. auto (default): keyed from 4 writers up, chained "
                            + "below (measured, docs/benchmark.md: at 8 writers keyed bulks are 1.7-2x fuller and the heap after GC 0.7x; "
                            + "at 2 writers chained costs less CPU for the same bulks). Checkpoints and savepoints restore across them.");

    public static final ConfigOption<Duration> RETRY_INITIAL_BACKOFF = ConfigOptions.key("retry.initial_backoff")
            .durationType()
            .defaultValue(Duration.ofMillis(100))
            .withDescription(
                    "First wait before retrying rejected (429) or unavailable (5xx, connection error) writes; doubles each time, with jitter.");

    public static final ConfigOption<Duration> RETRY_MAX_BACKOFF = ConfigOptions.key("retry.max_backoff")
            .durationType()
            .defaultValue(Duration.ofSeconds(10))
            .withDescription("Longest wait between two retries.");

    public static final ConfigOption<Duration> RETRY_MAX_TIME = ConfigOptions.key("retry.max_time")
            .durationType()
            .defaultValue(Duration.ofMinutes(5))
            .withDescription(
                    "How long one bulk may keep being retried before the job fails (and restarts from its last checkpoint).");

    private static final List<ConfigOption<?>> ALL = List.of(
            HOSTS,
            USERNAME,
            PASSWORD,
            API_KEY,
            TLS_CA_FILE,
            TLS_FINGERPRINT,
            PATH_PREFIX,
            GZIP,
            DURABILITY,
            FENCE_SYNC_WAIT,
            PRIMARY_NODE_ROUTING,
            CONNECT_TIMEOUT,
            SOCKET_TIMEOUT,
            BULK_MAX_DOCS,
            BULK_MAX_BYTES,
            BULK_LINGER,
            BULK_COALESCE,
            BULK_MAX_IN_FLIGHT,
            BULK_MAX_QUEUED_BYTES,
            BULK_MAX_BUFFERED_BYTES,
            BULK_ADAPTIVE_CONCURRENCY,
            SHARD_GROUPING,
            TOPOLOGY,
            RETRY_INITIAL_BACKOFF,
            RETRY_MAX_BACKOFF,
            RETRY_MAX_TIME);

    /** Every option above, in declaration order. A new option must be added here to be read from the job's YAML. */
    public static List<ConfigOption<?>> all() {
        return ALL;
    }

    /** The option's description as plain text, for messages that explain what a key means. */
    public static String meaning(ConfigOption<?> option) {
        return new PlainText().format(option.description());
    }

    /** Flink formats descriptions for its HTML docs only; kes's messages want the sentences as written. */
    private static final class PlainText extends Formatter {
        @Override
        protected void formatLink(StringBuilder state, String link, String description) {
            state.append(description).append(" (").append(link).append(')');
        }

        @Override
        protected void formatLineBreak(StringBuilder state) {
            state.append(' ');
        }

        @Override
        protected void formatText(
                StringBuilder state,
                String format,
                String[] elements,
                java.util.EnumSet<org.apache.flink.configuration.description.TextElement.TextStyle> styles) {
            state.append(String.format(format, (Object[]) elements));
        }

        @Override
        protected void formatList(StringBuilder state, String[] entries) {
            state.append(String.join("; ", entries));
        }

        @Override
        protected Formatter newInstance() {
            return new PlainText();
        }
    }
}
