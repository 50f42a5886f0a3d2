package io.kes.connector;

import static io.kes.connector.ElasticsearchSinkOptions.*;

import io.kes.connector.cluster.AwsSigV4;
import java.io.Serializable;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;

/**
 * The sink's validated, immutable settings, read from the options in {@link ElasticsearchSinkOptions}.
 * Every check says what is wrong and how to fix it. Read through its accessors; the password and
 * the API key have none (only the REST client gets them, as its {@code Authorization} header).
 */
@PublicEvolving
public final class SinkSettings implements Serializable {

    private static final long serialVersionUID = 1L;

    private final List<URI> hosts;
    private final String username;
    private final String password;
    private final String apiKey;
    private final String pathPrefix;
    private final String tlsCaFile;
    private final String tlsFingerprint;
    private final AwsSigV4 awsSigV4;
    private final boolean gzip;
    private final Durability durability;
    private final Duration fenceSyncWait;
    private final boolean primaryNodeRouting;
    private final Duration connectTimeout;
    private final Duration socketTimeout;
    private final int maxDocs;
    private final long maxBytes;
    private final Duration linger;
    private final Duration coalesce;
    private final int maxInFlight;
    private final long maxQueuedBytes;
    private final long maxBufferedBytes;
    private final boolean adaptiveConcurrency;
    private final boolean shardGrouping;
    private final ElasticsearchSinkOptions.Topology topology;
    private final Duration initialBackoff;
    private final Duration maxBackoff;
    private final Duration maxRetryTime;

    private SinkSettings(Configuration c) {
        List<String> rawHosts = c.get(HOSTS);
        check(
                rawHosts != null && !rawHosts.isEmpty(),
                HOSTS.key() + " is not set: give at least one Elasticsearch URL, e.g. http://localhost:9200");
        List<URI> parsed = new ArrayList<>();
        for (String h : rawHosts) {
            URI uri;
            try {
                uri = URI.create(h.trim());
            } catch (IllegalArgumentException e) {
                // the parser's own message quotes the input, with any password in it: not echoed
                throw new IllegalArgumentException(
                        HOSTS.key() + " has an invalid URL '" + withoutUserPart(h) + "': give it as https://host:9200");
            }
            check(
                    ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null,
                    HOSTS.key() + " entry '" + withoutUserPart(h)
                            + "' must look like http://host:9200 or https://host:9200");
            // kes never sends a URL's user part, and the hosts are shown in the Flink UI, the plan and logs
            check(
                    uri.getRawUserInfo() == null,
                    HOSTS.key() + " entry '" + withoutUserPart(h) + "' carries a user name or password: kes does not"
                            + " use them and would show them wherever the hosts are printed. Give the host alone ("
                            + withoutUserPart(h) + ") and the credentials in " + USERNAME.key() + " and "
                            + PASSWORD.key() + " (or " + API_KEY.key() + ")");
            parsed.add(uri);
        }
        this.hosts = List.copyOf(parsed);
        this.username = c.get(USERNAME);
        this.password = c.get(PASSWORD);
        this.apiKey = c.get(API_KEY);
        check(username == null || password != null, USERNAME.key() + " is set but " + PASSWORD.key() + " is not");
        check(password == null || username != null, PASSWORD.key() + " is set but " + USERNAME.key() + " is not");
        check(
                apiKey == null || username == null,
                "set either " + API_KEY.key() + " or " + USERNAME.key() + "/" + PASSWORD.key() + ", not both");
        this.pathPrefix = c.get(PATH_PREFIX);
        this.tlsCaFile = c.get(TLS_CA_FILE);
        this.tlsFingerprint = c.get(TLS_FINGERPRINT) == null
                ? null
                : c.get(TLS_FINGERPRINT).replace(":", "").trim().toLowerCase();
        check(
                tlsCaFile == null || tlsFingerprint == null,
                "set either " + TLS_CA_FILE.key() + " or " + TLS_FINGERPRINT.key() + ", not both");
        check(
                tlsFingerprint == null || tlsFingerprint.matches("[0-9a-f]{64}"),
                TLS_FINGERPRINT.key() + " must be a SHA-256 fingerprint: 64 hex digits (colons allowed), got '"
                        + c.get(TLS_FINGERPRINT) + "'");
        check(
                tlsCaFile == null || java.nio.file.Files.isReadable(java.nio.file.Path.of(tlsCaFile)),
                TLS_CA_FILE.key() + " '" + tlsCaFile + "' is not a readable file");
        check(
                pathPrefix == null || pathPrefix.startsWith("/"),
                PATH_PREFIX.key() + " must start with '/', got '" + pathPrefix + "'");
        this.gzip = c.get(GZIP);
        this.awsSigV4 = AwsSigV4.from(c);
        boolean serverless = awsSigV4 != null && awsSigV4.serverless(); // no shards to see: AwsSigV4 says why
        this.durability = serverless ? Durability.REQUEST : durability(c);
        this.fenceSyncWait = positive(c, FENCE_SYNC_WAIT);
        this.primaryNodeRouting = c.get(PRIMARY_NODE_ROUTING) && awsSigV4 == null;
        this.connectTimeout = positive(c, CONNECT_TIMEOUT);
        this.socketTimeout = positive(c, SOCKET_TIMEOUT);
        this.maxDocs = c.get(BULK_MAX_DOCS);
        check(maxDocs >= 1, BULK_MAX_DOCS.key() + " must be at least 1, got " + maxDocs);
        this.maxBytes = c.get(BULK_MAX_BYTES).getBytes();
        check(maxBytes >= 1024, BULK_MAX_BYTES.key() + " must be at least 1kb, got " + c.get(BULK_MAX_BYTES));
        check(
                maxBytes <= 100L * 1024 * 1024,
                BULK_MAX_BYTES.key() + " must be at most 100mb (Elasticsearch's default http.max_content_length), got "
                        + c.get(BULK_MAX_BYTES));
        this.linger = positive(c, BULK_LINGER);
        this.coalesce = c.get(BULK_COALESCE);
        check(
                coalesce == null || !coalesce.isNegative(),
                BULK_COALESCE.key() + " must be 0 or a duration like 5ms, got " + coalesce);
        this.maxInFlight = c.get(BULK_MAX_IN_FLIGHT);
        check(maxInFlight >= 1, BULK_MAX_IN_FLIGHT.key() + " must be at least 1, got " + maxInFlight);
        this.maxQueuedBytes = c.get(BULK_MAX_QUEUED_BYTES).getBytes();
        this.maxBufferedBytes = c.get(BULK_MAX_BUFFERED_BYTES).getBytes();
        check(
                maxBufferedBytes >= 2 * maxBytes,
                BULK_MAX_BUFFERED_BYTES.key() + " (" + c.get(BULK_MAX_BUFFERED_BYTES)
                        + ") must be at least twice " + BULK_MAX_BYTES.key() + " (" + c.get(BULK_MAX_BYTES)
                        + "): one full buffer and the "
                        + "operations it keeps");
        this.adaptiveConcurrency = c.get(BULK_ADAPTIVE_CONCURRENCY);
        this.shardGrouping = c.get(SHARD_GROUPING) && !serverless;
        this.topology = c.get(TOPOLOGY);
        this.initialBackoff = positive(c, RETRY_INITIAL_BACKOFF);
        this.maxBackoff = positive(c, RETRY_MAX_BACKOFF);
        check(
                maxBackoff.compareTo(initialBackoff) >= 0,
                RETRY_MAX_BACKOFF.key() + " (" + maxBackoff + ") must not be shorter than "
                        + RETRY_INITIAL_BACKOFF.key() + " (" + initialBackoff + ")");
        this.maxRetryTime = positive(c, RETRY_MAX_TIME);
    }

    /**
     * The most heap one writer subtask's documents take, in bytes, writing to a cluster of
     * {@code nodes} nodes: its buffers ({@code bulk.max_buffered_bytes}), the full ones waiting
     * for a node ({@code bulk.max_queued_bytes}) and {@code bulk.max_in_flight} bulks in flight per
     * node plus the shared budget, each at most about twice {@code bulk.max_bytes} on the heap
     * (a body's array grows by doubling, and the operations it keeps), and the arrays of answered
     * bodies it keeps for its next buffers (4, each at most {@code bulk.max_bytes} and 64 KB). What
     * the writer enforces, not an estimate of a typical run.
     */
    public long writerHeapBound(int nodes) {
        return maxBufferedBytes
                + maxQueuedBytes
                + (long) (Math.max(1, nodes) + 1) * maxInFlight * 2 * maxBytes
                + 4 * (maxBytes + 64 * 1024);
    }

    public List<URI> hosts() {
        return hosts;
    }

    public String username() {
        return username;
    }

    public String pathPrefix() {
        return pathPrefix;
    }

    public String tlsCaFile() {
        return tlsCaFile;
    }

    public String tlsFingerprint() {
        return tlsFingerprint;
    }

    public boolean gzip() {
        return gzip;
    }

    /** {@code elasticsearch.aws_sigv4}, or null when requests are not signed. */
    @Internal
    public AwsSigV4 awsSigV4() {
        return awsSigV4;
    }

    public Durability durability() {
        return durability;
    }

    public Duration fenceSyncWait() {
        return fenceSyncWait;
    }

    public boolean primaryNodeRouting() {
        return primaryNodeRouting;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    public Duration socketTimeout() {
        return socketTimeout;
    }

    public int maxDocs() {
        return maxDocs;
    }

    public long maxBytes() {
        return maxBytes;
    }

    public Duration linger() {
        return linger;
    }

    /** {@code bulk.coalesce}, at most the linger; null when not set (each index's refresh interval decides). */
    public Duration coalesce() {
        return coalesce == null || coalesce.compareTo(linger) < 0 ? coalesce : linger;
    }

    public int maxInFlight() {
        return maxInFlight;
    }

    public long maxQueuedBytes() {
        return maxQueuedBytes;
    }

    public long maxBufferedBytes() {
        return maxBufferedBytes;
    }

    public boolean adaptiveConcurrency() {
        return adaptiveConcurrency;
    }

    public boolean shardGrouping() {
        return shardGrouping;
    }

    public ElasticsearchSinkOptions.Topology topology() {
        return topology;
    }

    public Duration initialBackoff() {
        return initialBackoff;
    }

    public Duration maxBackoff() {
        return maxBackoff;
    }

    public Duration maxRetryTime() {
        return maxRetryTime;
    }

    /** Whether {@code elasticsearch.api_key} is set (the key itself is not readable here). */
    public boolean hasApiKey() {
        return apiKey != null;
    }

    /**
     * The {@code Authorization} header's value the credentials make ({@code ApiKey ...} or
     * {@code Basic ...}), or null without credentials. For {@code RestClients} only, which
     * ConnectorArchitectureTest holds: the password and the API key have no accessor and
     * {@link #toString} leaves them out, so they do not end up in a log or a user's code.
     */
    @Internal
    public String authorization() {
        if (apiKey != null) {
            return "ApiKey " + apiKey;
        }
        if (username != null) {
            return "Basic "
                    + Base64.getEncoder().encodeToString((username + ":" + password).getBytes(StandardCharsets.UTF_8));
        }
        return null;
    }

    /** {@code url} without the part before an {@code @} of its authority, safe to print. */
    static String withoutUserPart(String url) {
        return url.trim().replaceFirst("^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#]*@", "$1");
    }

    /** The settings without their secrets: the password and the API key show as {@code <hidden>} when set. */
    @Override
    public String toString() {
        return "SinkSettings{hosts=" + hosts + ", username=" + username + ", password=" + hidden(password)
                + ", apiKey=" + hidden(apiKey) + ", pathPrefix=" + pathPrefix + ", tlsCaFile=" + tlsCaFile
                + ", tlsFingerprint=" + tlsFingerprint + ", awsSigV4=" + awsSigV4 + ", gzip=" + gzip + ", durability="
                + durability
                + ", fenceSyncWait=" + fenceSyncWait + ", primaryNodeRouting=" + primaryNodeRouting
                + ", connectTimeout=" + connectTimeout + ", socketTimeout=" + socketTimeout + ", maxDocs=" + maxDocs
                + ", maxBytes=" + maxBytes + ", linger=" + linger + ", coalesce=" + coalesce + ", maxInFlight="
                + maxInFlight
                + ", maxQueuedBytes=" + maxQueuedBytes + ", maxBufferedBytes=" + maxBufferedBytes
                + ", adaptiveConcurrency=" + adaptiveConcurrency + ", shardGrouping=" + shardGrouping
                + ", topology=" + topology + ", initialBackoff=" + initialBackoff + ", maxBackoff=" + maxBackoff
                + ", maxRetryTime=" + maxRetryTime + "}";
    }

    private static String hidden(String secret) {
        return secret == null ? null : "<hidden>";
    }

    public static SinkSettings from(Configuration configuration) {
        return new SinkSettings(configuration);
    }

    /** The typed option; a text value Flink's enum parsing refuses may still be an older spelling, or gets the message. */
    private static Durability durability(Configuration c) {
        try {
            return c.get(DURABILITY);
        } catch (IllegalArgumentException e) {
            return Durability.parse(
                    c.get(ConfigOptions.key(DURABILITY.key()).stringType().noDefaultValue()));
        }
    }

    private static Duration positive(Configuration c, org.apache.flink.configuration.ConfigOption<Duration> option) {
        Duration d = c.get(option);
        check(
                d != null && !d.isNegative() && !d.isZero(),
                option.key() + " must be a positive duration like 500ms or 5s, got " + d);
        return d;
    }

    private static void check(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
