package io.kes.connector;

import io.kes.connector.internal.OptionText;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/**
 * Every option of the sink, declared once with its type, default and meaning. The builder's
 * setters, the job's YAML ({@code elasticsearch:}, {@code bulk:}, {@code retry:} sections use these
 * keys), a SQL table (under the names {@code io.kes.connector.table} derives from these keys) and
 * the config reference, "meaning" column included, all come from here; {@link #all()} lists them,
 * so nothing has to find them by reflection. A description is written in the reference's Markdown
 * ({@code `code`}, links relative to docs/) and names other options by their full key, which a SQL
 * table's description turns into its own name; {@link #meaning} reads it as plain text.
 */
@PublicEvolving
public final class ElasticsearchSinkOptions {

    private ElasticsearchSinkOptions() {}

    /** Each option's declaration by key, so that it can be declared again under another key; see {@link #underKey}. */
    private static final Map<String, Function<ConfigOptions.OptionBuilder, ? extends ConfigOption<?>>> DECLARATIONS =
            new HashMap<>();

    private static final List<ConfigOption<?>> ALL = new ArrayList<>();

    public static final ConfigOption<List<String>> HOSTS = declare(
            "elasticsearch.hosts",
            key -> key.stringType()
                    .asList()
                    .noDefaultValue()
                    .withDescription(
                            "Elasticsearch HTTP endpoints, e.g. `http://es1:9200`; requests are spread over them. No "
                                    + "credentials in them: `https://user:pw@host` is refused, give `elasticsearch.username` and "
                                    + "`elasticsearch.password` (see [security.md](security.md#elasticsearch))."));

    public static final ConfigOption<String> USERNAME = declare(
            "elasticsearch.username",
            key -> key.stringType()
                    .noDefaultValue()
                    .withDescription("Basic auth user (with `elasticsearch.password`)."));

    public static final ConfigOption<String> PASSWORD = declare(
            "elasticsearch.password",
            key -> key.stringType()
                    .noDefaultValue()
                    .withDescription("Basic auth password (with `elasticsearch.username`)."));

    public static final ConfigOption<String> API_KEY = declare(
            "elasticsearch.api_key",
            key -> key.stringType()
                    .noDefaultValue()
                    .withDescription(
                            "API key (the base64 `encoded` value Elasticsearch returns), sent as `Authorization: "
                                    + "ApiKey ...`; not together with `elasticsearch.username` and `elasticsearch.password`."));

    public static final ConfigOption<String> TLS_CA_FILE = declare(
            "elasticsearch.tls_ca_file",
            key -> key.stringType()
                    .noDefaultValue()
                    .withDescription(
                            "PEM file with the CA certificate(s) that signed Elasticsearch's HTTP certificate (e.g. "
                                    + "`config/certs/http_ca.crt` of a secured node); without it, the JVM's default trust store."));

    public static final ConfigOption<String> TLS_FINGERPRINT = declare(
            "elasticsearch.tls_fingerprint",
            key -> key.stringType()
                    .noDefaultValue()
                    .withDescription("SHA-256 fingerprint (hex, colons allowed) of the node's certificate or of a CA "
                            + "above it, as Elasticsearch prints its HTTP CA's at first start; the server must send that "
                            + "certificate in its chain, and the chain must validate up to it (PKIX, the pinned "
                            + "certificate the only one trusted: a chain that merely contains it is refused); host names "
                            + "are still verified; not together with `elasticsearch.tls_ca_file`."));

    public static final ConfigOption<String> AWS_SIGV4_REGION = declare(
            "elasticsearch.aws_sigv4.region",
            key -> key.stringType()
                    .noDefaultValue()
                    .withDescription(
                            "AWS region of an Amazon OpenSearch Service domain or Serverless collection, "
                                    + "e.g. `eu-west-1`: set, kes signs every request with AWS Signature V4 (body included), "
                                    + "with credentials from the AWS SDK's default chain (environment, profile, web identity, "
                                    + "container or instance role); not together with `elasticsearch.username` or "
                                    + "`elasticsearch.api_key` ([deployment.md](deployment.md#amazon-opensearch-service-and-serverless))."));

    public static final ConfigOption<String> AWS_SIGV4_SERVICE = declare(
            "elasticsearch.aws_sigv4.service",
            key -> key.stringType()
                    .defaultValue("es")
                    .withDescription("With `elasticsearch.aws_sigv4.region`: `es` for an OpenSearch Service domain, "
                            + "`aoss` for a Serverless collection, which has no shard routing, `_stats` or tasks: kes "
                            + "then sends mixed bulks and checkpoints wait for acknowledgements only."));

    public static final ConfigOption<String> PATH_PREFIX = declare(
            "elasticsearch.path_prefix",
            key -> key.stringType()
                    .noDefaultValue()
                    .withDescription("Path prefix when Elasticsearch sits behind a proxy, e.g. `/es`."));

    public static final ConfigOption<Boolean> GZIP = declare(
            "elasticsearch.gzip",
            key -> key.booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Send bulk bodies gzip-compressed (`Content-Encoding: gzip`): saves network, costs CPU "
                                    + "on both sides. Elasticsearch does not accept zstd request bodies."));

    public static final ConfigOption<Durability> DURABILITY = declare(
            "elasticsearch.durability",
            key -> key.enumType(Durability.class)
                    .defaultValue(Durability.CHECKPOINT_FENCE)
                    .withDescription("How acknowledged writes become durable before a checkpoint completes "
                            + "([Durability](order-and-durability.md#durability-what-the-checkpoint-fence-guarantees-and-costs)). "
                            + "`checkpoint-fence`: a checkpoint completes only once the translog of every shard written before "
                            + "it is fsynced (see `elasticsearch.fence_sync_wait`) and no shard's primary term moved since it "
                            + "acknowledged writes; else the job replays from the previous checkpoint (for async-translog "
                            + "indices). `request`: rely on Elasticsearch's per-request translog fsync; checkpoints only wait "
                            + "for acknowledgements."));

    public static final ConfigOption<Duration> FENCE_SYNC_WAIT = declare(
            "elasticsearch.fence_sync_wait",
            key -> key.durationType()
                    .defaultValue(Duration.ofSeconds(10))
                    .withDescription("With the checkpoint fence: how long a checkpoint may wait for Elasticsearch's "
                            + "own translog fsync (every `index.translog.sync_interval`, 5 s by default) to cover the "
                            + "writes before its barrier. Indices that sync less often, or do not catch up in time, are "
                            + "made durable with `_flush` instead, a Lucene commit that costs Elasticsearch more CPU. "
                            + "Writing goes on during the wait either way; only the checkpoint waits. At the end of a "
                            + "bounded input it also bounds how long a writer waits for the job's other writers in its "
                            + "process, which end the input with one `_flush` together."));

    public static final ConfigOption<Boolean> PRIMARY_NODE_ROUTING = declare(
            "elasticsearch.primary_node_routing",
            key -> key.booleanType()
                    .defaultValue(true)
                    .withDescription("Send each single-shard bulk straight to the node that holds the shard's "
                            + "primary, so that no other node coordinates it (the documents cross the network once; "
                            + "measured on three nodes: 1.2-1.3x the docs/s). Node addresses come from `_nodes/http`, "
                            + "shard locations from the routing table, refreshed every 30 s; a node is used once it "
                            + "answered at its published address, else its shards' bulks go to `elasticsearch.hosts`, "
                            + "as they always do with `elasticsearch.path_prefix` (a proxy) or without the `monitor` "
                            + "cluster privilege."));

    public static final ConfigOption<Duration> CONNECT_TIMEOUT = declare(
            "elasticsearch.connect_timeout",
            key -> key.durationType()
                    .defaultValue(Duration.ofSeconds(5))
                    .withDescription(
                            "How long opening a connection to a node may take before the request is retried."));

    public static final ConfigOption<Duration> SOCKET_TIMEOUT = declare(
            "elasticsearch.socket_timeout",
            key -> key.durationType()
                    .defaultValue(Duration.ofSeconds(60))
                    .withDescription("How long one request may wait for its answer before it is retried (a bulk, "
                            + "once Elasticsearch no longer runs it)."));

    public static final ConfigOption<Integer> BULK_MAX_DOCS = declare(
            "bulk.max_docs",
            key -> key.intType()
                    .defaultValue(1000)
                    .withDescription(
                            "A slot's buffer is sent as one bulk when it holds this many documents; at least 1."));

    public static final ConfigOption<MemorySize> BULK_MAX_BYTES = declare(
            "bulk.max_bytes",
            key -> key.memoryType()
                    .defaultValue(MemorySize.parse("1mb"))
                    .withDescription(
                            "A slot's buffer is sent as one bulk when its body reaches this size (1kb..100mb). "
                                    + "About 1 MB single-shard bulks beat 10 MB ones in the seed measurements."));

    public static final ConfigOption<Duration> BULK_LINGER = declare(
            "bulk.linger",
            key -> key.durationType()
                    .defaultValue(Duration.ofMillis(1000))
                    .withDescription(
                            "A buffer that is not full is sent at the latest this long after its first document, "
                                    + "queued for its node as a full one is even when the node has no free place in flight: "
                                    + "no document waits in a buffer longer. Usually a buffer goes sooner: see `bulk.coalesce`. "
                                    + "A checkpoint barrier does not cut a buffer short; the checkpoint waits for it."));

    public static final ConfigOption<Duration> BULK_COALESCE = declare(
            "bulk.coalesce",
            key -> key.durationType()
                    .noDefaultValue()
                    .withDescription(
                            "How long a buffer that is not full waits for more documents. Not set: half its index's "
                                    + "`index.refresh_interval` (500 ms at Elasticsearch's default 1 s), at most `bulk.linger`, "
                                    + "then it goes once its node has a free place in flight (while the node has none it keeps "
                                    + "filling): its documents become searchable about as soon as if it left at once, and bulks "
                                    + "stay large at moderate load, which is what Elasticsearch's CPU per document depends on; "
                                    + "an index that does not refresh (`-1`) waits out the linger "
                                    + "([Freshness](operations.md#freshness-when-a-buffer-goes)). Set: the buffer goes this "
                                    + "long after its first document once neither its node nor its slot has a bulk of this "
                                    + "writer in flight, and at the linger at the latest (at 3,000 records/s on 3 nodes, `5ms` made "
                                    + "bulks of 27 documents that cost Elasticsearch 2.4x the CPU per document of 750-document "
                                    + "bulks, for an indexed lag no search could see). `0`: at once."));

    public static final ConfigOption<Integer> BULK_MAX_IN_FLIGHT = declare(
            "bulk.max_in_flight",
            key -> key.intType()
                    .defaultValue(4)
                    .withDescription(
                            "Bulk requests one writer subtask keeps open at once per node it writes to (at least 1; "
                                    + "including ones waiting to be retried); bulks whose node is not known (mixed bulks, primary-node "
                                    + "routing off, primaries not located yet) share one more such budget. A full buffer whose node has "
                                    + "none free waits in that node's queue (see `bulk.max_queued_bytes`) while the writer goes on with "
                                    + "the other nodes' documents, so a stalled node holds only its own share. A bulk also waits while "
                                    + "one of its document ids has an earlier write in flight, so writes of an id apply in order."));

    public static final ConfigOption<MemorySize> BULK_MAX_QUEUED_BYTES = declare(
            "bulk.max_queued_bytes",
            key -> key.memoryType()
                    .defaultValue(MemorySize.parse("10mb"))
                    .withDescription("Full buffers waiting for their node's in-flight budget, in bytes of heap per "
                            + "writer subtask (as `bulk.max_buffered_bytes` counts them). Beyond it the writer blocks: "
                            + "the job backpressures. It sets how long one node may stall before the others wait too. "
                            + "`0` blocks as soon as a buffer has to wait."));

    public static final ConfigOption<MemorySize> BULK_MAX_BUFFERED_BYTES = declare(
            "bulk.max_buffered_bytes",
            key -> key.memoryType()
                    .defaultValue(MemorySize.parse("20mb"))
                    .withDescription("The writer's buffers together, in bytes of heap per writer subtask: the bulk "
                            + "bodies and the operations they keep for responses, retries and failure handling (about "
                            + "160 bytes a document: a body is the only copy of a source). Past it the writer sends its largest buffer at once, before it "
                            + "is full, so memory stays bounded however many shards and indices a writer sees; at least "
                            + "twice `bulk.max_bytes`. A writer's documents take at most `bulk.max_buffered_bytes` + "
                            + "`bulk.max_queued_bytes` + (nodes + 1) x `bulk.max_in_flight` bulks in flight "
                            + "([Topology and memory](operations.md#topology-and-memory))."));

    public static final ConfigOption<Boolean> BULK_ADAPTIVE_CONCURRENCY = declare(
            "bulk.adaptive_concurrency",
            key -> key.booleanType()
                    .defaultValue(false)
                    .withDescription("Adapt each node's in-flight limit to its answers, between 1 and "
                            + "`bulk.max_in_flight` (additive increase, multiplicative decrease, as Vector's adaptive "
                            + "request concurrency): cut to 0.9x on a 429, rejected items or a latency jump, raised by "
                            + "one per round trip while latency stays at its moving baseline. Off: every node gets "
                            + "`bulk.max_in_flight`."));

    public static final ConfigOption<Boolean> SHARD_GROUPING = declare(
            "bulk.shard_grouping",
            key -> key.booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Group documents by the shard they land on and send single-shard bulks. Off sends mixed "
                                    + "bulks, as other sinks do (for comparison)."));

    /** How documents reach the bulk writers; see {@link #TOPOLOGY}. */
    public enum Topology {
        /** Each writer runs in its input's subtask and buffers every shard it gets documents for. */
        CHAINED,
        /** Documents are keyed by shard slot before the writers, so each slot is buffered in one writer. */
        KEYED,
        /** Keyed from {@value ElasticsearchSinkOptions#KEYED_FROM_WRITERS} writers up (or when the parallelism is left to the cluster), chained below. */
        AUTO;

        @Override // the config value, as Flink's enum options parse and print it
        public String toString() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** {@link Topology#AUTO} keys by slot from this many writers up. */
    public static final int KEYED_FROM_WRITERS = 4;

    public static final ConfigOption<Topology> TOPOLOGY = declare(
            "bulk.topology",
            key -> key.enumType(Topology.class)
                    .defaultValue(Topology.AUTO)
                    .withDescription(
                            "How documents reach the writers. `keyed`: a router chained to the input predicts each "
                                    + "document's (index, shard) slot and sends it over the network to the one writer subtask that owns "
                                    + "the slot, so every shard is buffered once and its bulks fill whatever the parallelism (one id "
                                    + "always reaches one writer at a time, so per-id order holds); the exchange costs client CPU per "
                                    + "document. `chained`: each writer runs in its input's subtask with no exchange and buffers every "
                                    + "shard it sees: parallelism x shards buffers, each filling at 1/(parallelism x shards) of the "
                                    + "stream, and memory that grows with both. `auto`: keyed from "
                                    + KEYED_FROM_WRITERS + " writers "
                                    + "up (or when the parallelism is left to the cluster), chained below (measured, "
                                    + "[benchmark.md](benchmark.md): at 8 writers keyed bulks are 1.7-2x fuller and the heap after GC "
                                    + "0.7x; at 2 writers chained costs less CPU for the same bulks), but chained when every target "
                                    + "the job names has a single shard (read as the job is built: keyed gains nothing there and cost "
                                    + "0.77x chained's docs/s at 8 writers); with parallelism 1 or "
                                    + "`bulk.shard_grouping` off always chained. Keyed needs aligned checkpoints (with unaligned ones "
                                    + "`auto` chains, `keyed` is refused). Checkpoints and savepoints restore across them "
                                    + "([Topology and memory](operations.md#topology-and-memory))."));

    public static final ConfigOption<Duration> RETRY_INITIAL_BACKOFF = declare(
            "retry.initial_backoff",
            key -> key.durationType()
                    .defaultValue(Duration.ofMillis(100))
                    .withDescription("First wait before retrying rejected (429) or unavailable (5xx, connection "
                            + "error) writes; doubles each time, with jitter."));

    public static final ConfigOption<Duration> RETRY_MAX_BACKOFF = declare(
            "retry.max_backoff",
            key -> key.durationType()
                    .defaultValue(Duration.ofSeconds(10))
                    .withDescription("Longest wait between two retries."));

    public static final ConfigOption<Duration> RETRY_MAX_TIME = declare(
            "retry.max_time",
            key -> key.durationType()
                    .defaultValue(Duration.ofMinutes(5))
                    .withDescription(
                            "How long one bulk (or a checkpoint fence) may keep being retried before the job fails "
                                    + "(and restarts from its last checkpoint)."));

    /** Every option above, in declaration order: what the job's YAML reads. */
    public static List<ConfigOption<?>> all() {
        return Collections.unmodifiableList(ALL);
    }

    /** The option's description as plain text, for messages that explain what a key means. */
    public static String meaning(ConfigOption<?> option) {
        return OptionText.plain(option);
    }

    /** {@code option} declared again under {@code key} as declared here, for a surface with its own names (SQL). */
    @Internal
    @SuppressWarnings("unchecked")
    public static <T> ConfigOption<T> underKey(ConfigOption<T> option, String key) {
        Function<ConfigOptions.OptionBuilder, ? extends ConfigOption<?>> declaration = DECLARATIONS.get(option.key());
        if (declaration == null) {
            throw new IllegalArgumentException(option.key() + " is not an option of the sink");
        }
        return (ConfigOption<T>) declaration.apply(ConfigOptions.key(key));
    }

    private static <T> ConfigOption<T> declare(
            String key, Function<ConfigOptions.OptionBuilder, ConfigOption<T>> declaration) {
        ConfigOption<T> option = declaration.apply(ConfigOptions.key(key));
        DECLARATIONS.put(key, declaration);
        ALL.add(option);
        return option;
    }
}
