package io.kes.connector.bulk;

import io.kes.connector.DocumentOperation;
import io.kes.connector.fence.Epochs.Epoch;
import io.kes.connector.routing.PredictedShard;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The writer's buffers, a plain container: fills the {@link Slot} of each document and says what must
 * leave because of it (a target's old layout, a full buffer, the heap bound); when a buffer that is
 * not full leaves is not its business but the departures' owner's ({@link Departures}), which takes
 * it ({@link #take}). Task thread only.
 */
final class SlotBuffers {

    /**
     * A buffer taken out to go as one bulk, with the epoch its first document joined. A body of null
     * leaves nothing: the slot (of a target's old layout) has bulks queued, and nothing buffered
     * after this may go before they are sent.
     *
     * @param beforeAnyLater of a target's old layout: it must be sent before anything buffered after it
     *                       (its ids may map to other slots now)
     */
    record Leaving(Slot slot, BulkBody body, Epoch epoch, boolean beforeAnyLater) {}

    /** What an add leaves to do; the same instance every time, valid until the next add. */
    static final class Added {
        /** In the order they must go: a target's old layout first, then full buffers. */
        final List<Leaving> leaving = new ArrayList<>();
        /** The slot whose buffer the document started (it still fills), or null. */
        Slot started;
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
    private final Added added = new Added();
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
     * Buffers the document. The target's old-layout buffers are taken out first, the document's
     * buffer once it is full, and the largest ones while the buffers together pass
     * {@code bulk.max_buffered_bytes}: the caller sends them in that order.
     */
    Added add(DocumentOperation op, PredictedShard prediction) {
        added.leaving.clear();
        added.started = null;
        Slot slot = slots.slotFor(op.index(), prediction, superseded);
        if (!superseded.isEmpty()) {
            for (Slot old : superseded) {
                added.leaving.add(old.body != null ? take(old, true) : new Leaving(old, null, null, true));
            }
            superseded.clear();
        }
        if (slot.body == null) {
            int initial = initialCapacity(slot);
            slot.body = new BulkBody(arrays.take(initial));
            slot.capacity = slot.body.array().length;
            capacity += slot.capacity;
            slot.firstDocAtMillis = clockMillis.getAsLong();
            slots.nonEmpty.add(slot);
            added.started = slot;
        }
        long before = slot.body.heapBytes();
        slot.body.add(op, prediction);
        bufferedBytes += slot.body.heapBytes() - before;
        bufferedDocs++;
        if (slot.body.itemCount() >= maxDocs || slot.body.sizeInBytes() >= maxBytes) {
            added.leaving.add(take(slot));
            added.started = null;
        }
        while (bufferedBytes > maxBufferedBytes && !slots.nonEmpty.isEmpty()) {
            Slot largest = largestBuffer();
            added.leaving.add(take(largest));
            if (largest == added.started) {
                added.started = null;
            }
        }
        return added;
    }

    /** {@code slot}'s buffer, just started, holds {@code epoch} open until its bulk is done ({@link CheckpointDrain}). */
    void opened(Slot slot, Epoch epoch) {
        slot.epoch = epoch;
    }

    /** The slots whose buffer fills now, oldest first (a copy: taking one does not disturb it). */
    List<Slot> filling() {
        return new ArrayList<>(slots.nonEmpty);
    }

    /** Takes {@code slot}'s buffer out to go as one bulk. */
    Leaving take(Slot slot) {
        return take(slot, false);
    }

    /**
     * The body's bulk was answered: no request reads its array any longer, and the next buffer may
     * fill it ({@link BodyArrays}). The body itself must not be used after this.
     */
    void answered(BulkBody sent) {
        arrays.giveBack(sent.array());
    }

    /** Takes every buffer out (no document follows: the end of the input, or a stop with a savepoint). */
    List<Leaving> takeAll() {
        List<Leaving> all = new ArrayList<>(slots.nonEmpty.size());
        for (Slot slot : filling()) {
            all.add(take(slot));
        }
        return all;
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

    private Leaving take(Slot slot, boolean beforeAnyLater) {
        slots.nonEmpty.remove(slot);
        capacity -= slot.capacity;
        Epoch epoch = slot.epoch;
        slot.epoch = null;
        BulkBody body = slot.take();
        bufferedDocs -= body.itemCount();
        bufferedBytes -= body.heapBytes();
        return new Leaving(slot, body, epoch, beforeAnyLater);
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
