package io.kes.connector.bulk;

import io.kes.connector.cluster.SentTo;
import io.kes.connector.fence.Epochs.Epoch;
import java.util.ArrayDeque;

/**
 * A bulk in flight: one bulk's items, from the moment its buffer is queued for its node until every
 * item succeeded or failed for good. {@link Departures} sends it, {@link BulkLifecycle} changes it
 * after that (the deciders, {@link BulkAnswers} and {@link Retries}, read it). Its body
 * shrinks to the items still to retry; a bulk the node found too large (413) is sent in parts,
 * one after the other, so its items keep their order. Its epoch is the one current when it was
 * queued, not when it went out: a checkpoint covers every buffer sent at or before its barrier.
 */
final class BulkInFlight {

    final Slot slot;
    /** The checkpoint interval it was first sent in; its retries stay there. */
    final Epoch epoch;
    /** Whether it left its node's queue. */
    boolean sent;
    /** When it first went out (not while it waited in its node's queue): retry.max_time counts from here. */
    long firstSentNanos;
    /** Whose in-flight budget it takes (the queue it left; a retry keeps it even when the primary moved). */
    NodeBudgets.Budget budget;

    BulkBody body;
    /** Parts still to send after {@link #body} (a bulk split after a 413). */
    final ArrayDeque<BulkBody> laterParts = new ArrayDeque<>();

    int attempt;
    long sentNanos;
    /**
     * The node the current attempt went to, and only there: its shard's primary, or the configured
     * host the client was given; null when it failed before it left (the client found no node).
     */
    SentTo sentTo;

    BulkInFlight(BulkBody body, Slot slot, Epoch epoch) {
        this.body = body;
        this.slot = slot;
        this.epoch = epoch;
    }

    int itemsLeft() {
        int n = body.itemCount();
        for (BulkBody part : laterParts) {
            n += part.itemCount();
        }
        return n;
    }

    /** The next part of a split bulk becomes the body; false when there is none. */
    boolean nextPart() {
        BulkBody next = laterParts.poll();
        if (next == null) {
            return false;
        }
        body = next;
        attempt = 0;
        return true;
    }
}
