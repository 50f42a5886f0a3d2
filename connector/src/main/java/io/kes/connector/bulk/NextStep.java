package io.kes.connector.bulk;

import io.kes.connector.FailedOperation;

/**
 * What happens next to a bulk in flight after an answer, as the pure deciders ({@link BulkAnswers},
 * {@link Retries}) say it; {@link BulkLifecycle} applies it, and is the only one that changes the
 * bulk, its ids' holds, its node's budget and its epoch.
 */
sealed interface NextStep {

    /** The part sent is over: the next part of a split bulk goes out, or the bulk is done. */
    record Done() implements NextStep {}

    /** Send {@code left} (the items still to write, in order) again; {@link Retries} says when, or gives up. */
    record Retry(BulkBody left, String cause) implements NextStep {}

    /** Send again in {@code delayMillis}, the backoff of this attempt. */
    record RetryAfter(long delayMillis, String cause) implements NextStep {}

    /** Send {@code first} now and {@code rest} after it (413: larger than the node accepts). */
    record Split(BulkBody first, BulkBody rest) implements NextStep {}

    /** The one document sent can never be written: to the failure handler, and the part is over. */
    record HandOver(FailedOperation failure) implements NextStep {}

    /** The job fails: what is left of the bulk is no longer in flight (a restart replays it). */
    record GiveUp(RuntimeException failure) implements NextStep {}

    /**
     * No answer from Elasticsearch, which may still run the bulk: send it again once its node no
     * longer runs it ({@link AbandonedBulks}), unless none of its ids has an order to keep.
     */
    record AwaitNode(String cause) implements NextStep {}

    NextStep DONE = new Done();
}
