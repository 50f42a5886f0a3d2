package io.kes.connector.fence;

import io.kes.connector.NonRecoverable;
import io.kes.connector.cluster.PrivilegeCheck;
import io.kes.connector.cluster.StatusPolicy;
import io.kes.connector.internal.Backoff;
import java.io.IOException;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the {@link CheckpointFence} retries its reads and flushes: while Elasticsearch cannot be
 * reached (or answers 429/5xx) with backoff for up to {@code retry.max_time}, as writes do, so that
 * a checkpoint waits rather than fails over a short outage.
 */
final class FenceRetries {

    private static final Logger LOG = LoggerFactory.getLogger(CheckpointFence.class);

    private final Backoff backoff;
    private final long maxRetryMillis;

    FenceRetries(Backoff backoff, long maxRetryMillis) {
        this.backoff = backoff;
        this.maxRetryMillis = maxRetryMillis;
    }

    interface Step<T> {
        T run() throws IOException, InterruptedException;
    }

    /**
     * Runs {@code step} until it succeeds, retrying with backoff what {@link StatusPolicy} retries
     * for up to {@code retry.max_time} since {@code started}; a refusal (401, 403) ends the job with
     * the privileges the fence needs named.
     */
    <T> T run(Set<String> indices, long started, Step<T> step) throws IOException, InterruptedException {
        for (int attempt = 0; ; attempt++) {
            try {
                return step.run();
            } catch (IOException e) {
                long elapsed = (System.nanoTime() - started) / 1_000_000;
                int status = StatusPolicy.statusOf(e);
                StatusPolicy.Action action = StatusPolicy.ofRequest(status);
                if (action == StatusPolicy.Action.STOP && status == 401) {
                    throw NonRecoverable.error(
                            "checkpoint fence: " + PrivilegeCheck.credentialsRefused("the state of " + indices) + " "
                                    + e.getMessage(),
                            e);
                }
                if (action == StatusPolicy.Action.STOP) {
                    throw NonRecoverable.error(
                            "checkpoint fence: Elasticsearch refused to show the state of " + indices + " (HTTP "
                                    + status + "). The fence reads _cluster/state (cluster privilege "
                                    + "'monitor'), _stats (index privilege 'monitor') and may _flush (index privilege 'maintenance') of the "
                                    + "indices kes writes: grant them to kes's user or API key, or set elasticsearch.durability: request "
                                    + "for indices that fsync every request. " + e.getMessage(),
                            e);
                }
                if (action != StatusPolicy.Action.RETRY || elapsed >= maxRetryMillis) {
                    throw new IOException(
                            "checkpoint fence: could not make " + indices
                                    + " durable and read their primary terms within " + elapsed + " ms: "
                                    + e.getMessage(),
                            e);
                }
                long delay = backoff.delayMillis(attempt);
                if (attempt == 0 || attempt % 10 == 0) {
                    LOG.warn("Checkpoint fence retries in {} ms (attempt {}): {}", delay, attempt + 1, e.toString());
                }
                Thread.sleep(delay);
            }
        }
    }
}
