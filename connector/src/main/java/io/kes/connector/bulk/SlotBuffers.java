package io.kes.connector.bulk;

import io.kes.connector.DocumentOperation;
import io.kes.connector.routing.PredictedShard;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The writer's buffers: fills the {@link Slot} of each document and hands out the bodies that are
 * ready to go (full, their {@link DepartureRule} says so ({@link PartialSends}), the end of the
 * input, or of a target's old layout), in the order they must be sent. Task thread only.
 */
final class SlotBuffers {

    /** Where ready bodies go; may wait (backpressure). */
    interface Sender {
        /**
         * @param beforeAnyLater the body is of a target's old layout: it must have gone out before
         *                       anything buffered after it does (its ids may map to other slots now)
         */
        void send(Slot slot, BulkBody body, boolean beforeAnyLater) throws InterruptedException;

        /**
         * Returns once every bulk of {@code slot} waiting in a node's queue has been sent (its ids
         * are then held in flight, so nothing buffered after this overtakes them).
         */
        void awaitQueued(Slot slot) throws InterruptedException;
    }

    /** Whether a buffer that is not full may go now: asked of the node budgets. */
    interface Room {
        /** Neither the slot nor its node has a bulk of this writer in flight or queued. */
        boolean idle(Slot slot);

        /** The budget the slot's next bulk would join has a free place now. */
        boolean hasRoom(Slot slot);
    }

    /** A buffer starts at most this big unless its slot's last bulk was bigger and the budget allows. */
    private static final int SMALL_BUFFER = 64 * 1024;

    private final SlotTable slots;
    /** Read only when a buffer starts, not per document: the clock is not free on the hot path. */
    private final LongSupplier clockMillis;

    private final int maxDocs;
    private final long maxBytes;
    /** The buffers' heap together ({@link BulkBody#heapBytes()}); past it the largest buffer leaves at once. */
    private final long maxBufferedBytes;

    private long bufferedBytes;
    /** Buffers may start at their slot's last size while all of them together stay below this. */
    private final long capacityBudget;

    private final BodyArrays arrays;

    private final List<Slot> superseded = new ArrayList<>();
    private long capacity;
    private int bufferedDocs;

    SlotBuffers(boolean shardGrouping, int maxDocs, long maxBytes, long maxBufferedBytes, LongSupplier clockMillis) {
        this.slots = new SlotTable(shardGrouping);
        this.clockMillis = clockMillis;
        this.maxDocs = maxDocs;
        this.maxBytes = maxBytes;
        this.maxBufferedBytes = maxBufferedBytes;
        this.capacityBudget = 16 * maxBytes;
        this.arrays = new BodyArrays((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + SMALL_BUFFER));
    }

    /**
     * Buffers the document. Sends the target's old-layout buffers first, and the document's buffer
     * once it is full. Returns the slot whose buffer the document started ({@link PartialSends}
     * looks at it later), or null when it joined one.
     */
    Slot add(DocumentOperation op, PredictedShard prediction, Sender sender) throws InterruptedException {
        Slot slot = slots.slotFor(op.index(), prediction, superseded);
        if (!superseded.isEmpty()) {
            List<Slot> first = new ArrayList<>(superseded);
            superseded.clear();
            for (Slot old : first) {
                if (old.body != null) {
                    send(old, sender, true); // its earlier queued bulks are ahead of it in the same queue
                } else {
                    sender.awaitQueued(old);
                }
            }
        }
        boolean started = slot.body == null;
        if (started) {
            int initial = initialCapacity(slot);
            slot.body = new BulkBody(arrays.take(initial));
            slot.capacity = slot.body.array().length;
            capacity += slot.capacity;
            slot.firstDocAtMillis = clockMillis.getAsLong();
            slots.nonEmpty.add(slot);
        }
        long before = slot.body.heapBytes();
        slot.body.add(op, prediction);
        bufferedBytes += slot.body.heapBytes() - before;
        bufferedDocs++;
        if (slot.body.itemCount() >= maxDocs || slot.body.sizeInBytes() >= maxBytes) {
            slots.nonEmpty.remove(slot);
            send(slot, sender);
        }
        while (bufferedBytes > maxBufferedBytes && !slots.nonEmpty.isEmpty()) {
            Slot largest = largestBuffer();
            slots.nonEmpty.remove(largest);
            send(largest, sender);
        }
        return started ? slot : null;
    }

    /**
     * A checkpoint barrier: every buffer filling now goes at {@code dueAtMillis} at the latest, with
     * room in its node's budget or not (it then queues there, as a full one would). Left to room
     * alone it could wait behind other slots' full bulks for as long as they keep coming, and its
     * checkpoint with it. Returns whether any buffer is filling.
     */
    boolean barrier(long dueAtMillis) {
        for (Slot slot : slots.nonEmpty) {
            slot.dueAtMillis = Math.min(slot.dueAtMillis, dueAtMillis);
        }
        return !slots.nonEmpty.isEmpty();
    }

    /**
     * Sends, oldest first, the buffers that are not full but may go by {@code rule}; the others keep
     * filling. Returns when the next one may go whatever happens meanwhile ({@link Long#MAX_VALUE}:
     * none, until a bulk ends and makes room: {@link DepartureRule#nextLook}).
     */
    long sendPartial(long nowMillis, DepartureRule rule, Room room, Sender sender) throws InterruptedException {
        long next = Long.MAX_VALUE;
        for (Slot slot : new ArrayList<>(slots.nonEmpty)) {
            if (slot.body == null) {
                continue; // sent while an earlier one waited (backpressure)
            }
            if (rule.goesNow(slot, nowMillis, room)) {
                slots.nonEmpty.remove(slot);
                send(slot, sender);
            } else {
                next = Math.min(next, rule.nextLook(slot, nowMillis, room));
            }
        }
        return next;
    }

    /**
     * The body's bulk was answered: no request reads its array any longer, and the next buffer may
     * fill it ({@link BodyArrays}). The body itself must not be used after this.
     */
    void answered(BulkBody sent) {
        arrays.giveBack(sent.array());
    }

    /** Sends every buffer (no document follows: the end of the input, or a stop with a savepoint). */
    void sendAll(Sender sender) throws InterruptedException {
        List<Slot> pending = new ArrayList<>(slots.nonEmpty);
        slots.nonEmpty.clear();
        for (Slot slot : pending) {
            send(slot, sender);
        }
    }

    /** Forgets targets with nothing buffered (date-named indices come and go); call now and then. */
    void forgetIdleTargets() {
        slots.forgetIdleTargets();
    }

    int bufferedDocs() {
        return bufferedDocs;
    }

    /** The heap the buffers hold now; at most {@code bulk.max_buffered_bytes} plus one document. */
    long bufferedBytes() {
        return bufferedBytes;
    }

    /** Past the bound: the buffer that frees most goes, so as few bulks as possible leave unfilled. */
    private Slot largestBuffer() {
        Slot largest = null;
        for (Slot slot : slots.nonEmpty) {
            if (largest == null || slot.body.heapBytes() > largest.body.heapBytes()) {
                largest = slot;
            }
        }
        return largest;
    }

    private void send(Slot slot, Sender sender) throws InterruptedException {
        send(slot, sender, false);
    }

    private void send(Slot slot, Sender sender, boolean beforeAnyLater) throws InterruptedException {
        capacity -= slot.capacity;
        BulkBody body = slot.take();
        bufferedDocs -= body.itemCount();
        bufferedBytes -= body.heapBytes();
        sender.send(slot, body, beforeAnyLater);
    }

    /**
     * A busy slot's full bodies come out about the same size; starting at the largest recent one
     * ({@link Slot#recentBodyBytes}) plus some slack avoids growing a ~1 MB array by doubling
     * (copying) it once or more per bulk. With many slots (many shards, or date-named indices) that
     * would reserve a bulk's size per slot, so beyond a budget of 16 bulks a buffer starts small and
     * grows only as far as it is filled.
     */
    private int initialCapacity(Slot slot) {
        long recent = slot.recentBodyBytes();
        long hint = recent > 0 ? recent + recent / 8 : SMALL_BUFFER;
        hint = Math.min(hint, maxBytes + SMALL_BUFFER);
        return (int) (capacity + hint <= capacityBudget ? hint : Math.min(hint, SMALL_BUFFER));
    }
}
