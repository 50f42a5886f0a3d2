package io.kes.connector.bulk;

import io.kes.connector.routing.ClusterMetadataClient;
import io.kes.connector.routing.IndexMetadata;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.elasticsearch.client.ResponseException;
import org.elasticsearch.client.RestClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What makes async-translog writes safe: run for each checkpoint once the bulks before its barrier are done. First
 * {@code _flush} every index written since the previous checkpoint (Lucene commit plus translog
 * fsync: acknowledged writes now survive a crash), then read the shards' primary terms and compare
 * them with the terms the writes were acknowledged under. A term that moved means the primary was
 * replaced after acknowledging writes it may not have synced: fail the checkpoint, so Flink
 * restores the previous one and replays; idempotent ids make the replay harmless.
 *
 * <p>A failover between the flush and the term read fails a checkpoint that was in fact safe: a
 * replay too many, never a loss.
 */
final class CheckpointFence {

    /** The checkpoint must not complete: writes since the last one may be lost. */
    static final class FenceException extends IOException {
        private static final long serialVersionUID = 1L;

        FenceException(String message) {
            super(message);
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(CheckpointFence.class);

    private final ClusterMetadataClient metadata;
    private final Backoff backoff;
    private final long maxRetryMillis;

    CheckpointFence(RestClient client, Backoff backoff, Duration maxRetryTime) {
        this.metadata = new ClusterMetadataClient(client);
        this.backoff = backoff;
        this.maxRetryMillis = maxRetryTime.toMillis();
    }

    /**
     * Makes the written indices durable and checks their primary terms. While Elasticsearch cannot
     * be reached (or answers 429/5xx) it retries with backoff for up to {@code retry.max_time}, as
     * writes do: the checkpoint waits rather than fails over a short outage.
     */
    void check(AcknowledgedWrites acknowledged) throws IOException, InterruptedException {
        if (acknowledged.isEmpty()) {
            return;
        }
        Set<String> indices = acknowledged.indices();
        long started = System.nanoTime();
        Map<String, long[]> terms = new HashMap<>();
        for (int attempt = 0; ; attempt++) {
            try {
                metadata.flush(indices);
                for (Map.Entry<String, IndexMetadata> e : metadata.indices(indices).entrySet()) {
                    terms.put(e.getKey(), e.getValue().primaryTerms());
                }
                break;
            } catch (IOException e) {
                long elapsed = (System.nanoTime() - started) / 1_000_000;
                if (!retryable(e) || elapsed >= maxRetryMillis) {
                    throw new IOException("checkpoint fence: could not flush " + indices + " and read their primary terms within "
                            + elapsed + " ms: " + e.getMessage(), e);
                }
                long delay = backoff.delayMillis(attempt);
                if (attempt == 0 || attempt % 10 == 0) {
                    LOG.warn("Checkpoint fence retries in {} ms (attempt {}): {}", delay, attempt + 1, e.toString());
                }
                Thread.sleep(delay);
            }
        }
        String moved = acknowledged.firstMovedShard(terms);
        if (moved != null) {
            throw new FenceException("checkpoint fence: shard " + moved + " changed primary after acknowledging writes that "
                    + "an async translog may not have synced. Failing this checkpoint; the job restarts from the previous "
                    + "one and replays those records (ids make the replay idempotent).");
        }
        acknowledged.clear();
    }

    private static boolean retryable(IOException e) {
        if (e instanceof ResponseException re) {
            int status = re.getResponse().getStatusLine().getStatusCode();
            return status == 429 || status >= 500;
        }
        return true; // connection refused, reset, timed out
    }
}
