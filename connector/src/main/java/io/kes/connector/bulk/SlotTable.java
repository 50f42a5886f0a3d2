package io.kes.connector.bulk;

import io.kes.connector.routing.PredictedShard;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The writer's buffers: one {@link Slot} per (target name, predicted shard), one for documents of
 * a target whose shard is not predicted, or a single mixed slot when shard grouping is off.
 *
 * <p>It keeps one promise the per-id order rests on: a document id is buffered in at most one slot
 * at a time. Within one layout of a target an id always maps to the same slot: the slot follows
 * {@link PredictedShard#batchShard()}, which depends on the layout, the id and the routing only
 * (not on the op type or on what kes thinks of a pipeline). When the layout
 * changes (a rollover, a re-created or resharded index, the first successful metadata read), the
 * same id could map to another slot; so the target's slots of the old layout are handed back to be
 * sent before any document predicted with the new one is buffered.
 */
final class SlotTable {

    private static final class TargetSlots {
        Object generation;
        Slot[] byShard = new Slot[0];
        Slot anyShard;
    }

    private final boolean shardGrouping;
    private final Map<String, TargetSlots> byTarget = new HashMap<>();
    private final Slot mixed = new Slot(null, PredictedShard.UNKNOWN_SHARD);
    /** Slots holding documents, in the order they got their first one. */
    final Set<Slot> nonEmpty = new LinkedHashSet<>();

    SlotTable(boolean shardGrouping) {
        this.shardGrouping = shardGrouping;
    }

    /**
     * The slot for a document of {@code target} predicted as {@code prediction}. Slots of the
     * target's previous layout that hold a buffer or have bulks queued are added to
     * {@code sendFirst}, and removed from {@link #nonEmpty}: the caller sends them (or waits until
     * their queued bulks are sent) before it buffers the document.
     */
    Slot slotFor(String target, PredictedShard prediction, List<Slot> sendFirst) {
        if (!shardGrouping) {
            return mixed;
        }
        TargetSlots slots = byTarget.get(target);
        if (slots == null) {
            slots = new TargetSlots();
            byTarget.put(target, slots);
        }
        Object generation =
                prediction.layout() == null ? null : prediction.layout().generation();
        if (generation != slots.generation) {
            supersede(slots, sendFirst);
            slots.generation = generation;
            slots.byShard = new Slot
                    [prediction.layout() == null ? 0 : prediction.layout().numberOfShards()];
        }
        int shard = prediction.batchShard();
        if (shard < 0) {
            if (slots.anyShard == null) {
                slots.anyShard = newSlot(target, PredictedShard.UNKNOWN_SHARD, prediction);
            }
            return slots.anyShard;
        }
        Slot slot = slots.byShard[shard];
        if (slot == null) {
            slot = newSlot(target, shard, prediction);
            slots.byShard[shard] = slot;
        }
        return slot;
    }

    /** A slot that knows its index's refresh interval, when the prediction names a layout ({@link DepartureRule}). */
    private static Slot newSlot(String target, int shard, PredictedShard prediction) {
        return prediction.layout() == null
                ? new Slot(target, shard)
                : new Slot(target, shard, prediction.layout().refreshIntervalMillis());
    }

    /**
     * Hands back the old layout's slots that hold a buffer or still have bulks waiting in a node's
     * queue: nothing predicted with the new layout may be buffered before those are out.
     */
    private void supersede(TargetSlots slots, List<Slot> sendFirst) {
        for (Slot slot : slots.byShard) {
            handBack(slot, sendFirst);
        }
        handBack(slots.anyShard, sendFirst);
        slots.anyShard = null;
    }

    private void handBack(Slot slot, List<Slot> sendFirst) {
        if (slot != null && busy(slot)) {
            nonEmpty.remove(slot);
            sendFirst.add(slot);
        }
    }

    /** A buffer, or bulks still queued for a node: the slot's next bulk must queue behind them. */
    private static boolean busy(Slot slot) {
        return slot.body != null || slot.lane.queued() > 0;
    }

    /** Forgets targets with nothing buffered or queued (date-named indices come and go); call now and then. */
    void forgetIdleTargets() {
        byTarget.values().removeIf(slots -> {
            for (Slot slot : slots.byShard) {
                if (slot != null && busy(slot)) {
                    return false;
                }
            }
            return slots.anyShard == null || !busy(slots.anyShard);
        });
    }
}
