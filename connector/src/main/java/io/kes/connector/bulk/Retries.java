package io.kes.connector.bulk;

import io.kes.connector.cluster.StatusPolicy;
import io.kes.connector.internal.Backoff;
import java.time.Duration;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a bulk's failed items go out again, and when the writer stops trying. Each retry waits its
 * {@link Backoff} delay on a timer; once {@code retry.max_time} has passed since the bulk first
 * went out, the job fails instead. A bulk that got no answer at all may still run in
 * Elasticsearch: it goes out again only once Elasticsearch no longer runs it ({@link AbandonedBulks}),
 * unless none of its ids has an order to keep.
 *
 * <p>A retried batch keeps its ids held ({@link InFlightIds}) until its items are over, so no later
 * write of them overtakes the retry. Task thread only: the timers fire there, none after
 * {@link #close()}, and the task listing answers there.
 */
final class Retries {

    private static final Logger LOG = LoggerFactory.getLogger(Retries.class);

    private final Duration maxRetryTime;
    private final Backoff backoff;
    private final ProcessingTimeService time;
    private final LongSupplier nanoTime;
    private final BulkTransport transport;
    private final InFlightIds inFlightIds;
    private final BulkMetrics metrics;
    private final BiConsumer<Batch, RuntimeException> giveUp;
    private final AbandonedBulks abandoned;
    private boolean closed;

    /**
     * @param giveUp what the writer does with a batch it can no longer retry: fails the job and
     *               releases what is left of the batch
     */
    Retries(
            Duration maxRetryTime,
            Backoff backoff,
            ProcessingTimeService time,
            LongSupplier nanoTime,
            BulkTransport transport,
            InFlightIds inFlightIds,
            BulkMetrics metrics,
            BiConsumer<Batch, RuntimeException> giveUp) {
        this.maxRetryTime = maxRetryTime;
        this.backoff = backoff;
        this.time = time;
        this.nanoTime = nanoTime;
        this.transport = transport;
        this.inFlightIds = inFlightIds;
        this.metrics = metrics;
        this.giveUp = giveUp;
        this.abandoned = new AbandonedBulks(transport::listTaggedBulks, this::after, nanoTime);
    }

    /** Sends the batch's body again after its backoff, or gives up once {@code retry.max_time} has passed. */
    void schedule(Batch retry, String cause) {
        retry.attempt++;
        long elapsedMillis = (nanoTime.getAsLong() - retry.firstSentNanos) / 1_000_000;
        if (elapsedMillis >= maxRetryTime.toMillis()) {
            giveUp.accept(retry, WriteFailures.retriesExhausted(retry, elapsedMillis, cause));
            return;
        }
        long delay = backoff.delayMillis(retry.attempt - 1);
        if (retry.attempt == 1 || retry.attempt % 10 == 0) {
            LOG.warn(
                    "Retrying {} documents ({}) in {} ms, attempt {}: {}",
                    retry.body.itemCount(),
                    retry.slot,
                    delay,
                    retry.attempt,
                    cause);
        }
        after(delay, () -> transport.dispatch(retry));
    }

    /**
     * The bulk got no answer from Elasticsearch (a timeout, a reset connection, a proxy's 502/504,
     * {@link StatusPolicy#mayStillRun}): it goes out again once Elasticsearch no longer runs it, or
     * gives up when that is not known within {@code retry.max_time}.
     */
    void afterNoAnswer(Batch batch, BulkBody sent, Exception exception) {
        int status = StatusPolicy.statusOf(exception);
        String cause = status == StatusPolicy.NO_RESPONSE
                ? "no answer (" + exception + ")"
                : "HTTP " + status + " from " + batch.sentTo
                        + ", not Elasticsearch's own answer (a proxy or load balancer): the node may still run the bulk";
        // The batch holds its own ids while in flight, so none held means none whose order
        // matters (id: kafka, ids Elasticsearch makes): a late copy of them is harmless.
        if (!inFlightIds.anyHeld(sent)) {
            schedule(batch, cause);
            return;
        }
        metrics.bulksAwaitedAfterNoAnswer.inc();
        long deadline = batch.firstSentNanos + maxRetryTime.toNanos();
        abandoned.awaitGone(
                batch.sentTo,
                deadline,
                () -> schedule(batch, cause),
                why -> giveUp.accept(
                        batch,
                        WriteFailures.retriesExhausted(
                                batch, (nanoTime.getAsLong() - batch.firstSentNanos) / 1_000_000, why)));
    }

    /** No retry goes out any more: the writer closed. */
    void close() {
        closed = true;
    }

    /** Runs {@code action} on the task thread in {@code delayMillis}, unless the writer closed meanwhile. */
    private void after(long delayMillis, Runnable action) {
        time.registerTimer(time.getCurrentProcessingTime() + delayMillis, t -> {
            if (!closed) {
                action.run();
            }
        });
    }
}
