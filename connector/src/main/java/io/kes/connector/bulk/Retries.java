package io.kes.connector.bulk;

import io.kes.connector.internal.Backoff;
import java.time.Duration;

/**
 * When a bulk's failed items go out again, and when the writer stops trying, decided and not
 * applied ({@link BulkLifecycle} applies it). Each retry waits its {@link Backoff} delay; once
 * {@code retry.max_time} has passed since the bulk first went out, the job fails instead. A bulk
 * that got no answer at all waits for its node ({@link AbandonedBulks}) until the same deadline.
 * Pure.
 */
final class Retries {

    private final Duration maxRetryTime;
    private final Backoff backoff;

    Retries(Duration maxRetryTime, Backoff backoff) {
        this.maxRetryTime = maxRetryTime;
        this.backoff = backoff;
    }

    /**
     * The next attempt of {@code bulk}, whose {@link BulkInFlight#attempt} counts the attempts
     * that failed so far (this one included): after its backoff, or not at all once
     * {@code retry.max_time} has passed.
     */
    NextStep next(BulkInFlight bulk, long nowNanos, String cause) {
        long elapsedMillis = (nowNanos - bulk.firstSentNanos) / 1_000_000;
        if (elapsedMillis >= maxRetryTime.toMillis()) {
            return new NextStep.GiveUp(WriteFailures.retriesExhausted(bulk, elapsedMillis, cause));
        }
        return new NextStep.RetryAfter(backoff.delayMillis(bulk.attempt - 1), cause);
    }

    /** Until when a bulk without answer may wait for its node before the job fails. */
    long deadlineNanos(BulkInFlight bulk) {
        return bulk.firstSentNanos + maxRetryTime.toNanos();
    }

    /** The wait for a bulk's node did not end by {@link #deadlineNanos}: the job fails, saying why. */
    NextStep.GiveUp waitedTooLong(BulkInFlight bulk, long nowNanos, String why) {
        return new NextStep.GiveUp(
                WriteFailures.retriesExhausted(bulk, (nowNanos - bulk.firstSentNanos) / 1_000_000, why));
    }
}
