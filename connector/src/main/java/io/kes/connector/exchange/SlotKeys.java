package io.kes.connector.exchange;

import io.kes.connector.DocumentOperation;
import io.kes.connector.routing.PredictedShard;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import org.apache.flink.annotation.VisibleForTesting;

/**
 * Which writer a document goes to, as a key the exchange maps onto the writers ({@code key mod
 * writers}). A document whose shard is predicted gets its slot's key, {@code base(index) + shard}:
 * every document of one (index, shard) slot reaches one writer, and an index's shards are spread
 * over the writers one by one. Any other document (index unknown or unpredictable) gets a key
 * from its id, so an id still reaches one writer.
 *
 * <p>Every writer busy whatever the shard count: an index with fewer shards than writers (a
 * 1-shard index or data stream, Elasticsearch's default, at 8 writers), or a count the writers do
 * not divide (12 shards on 8 writers: 4 writers with 2 shards, 4 with one), would leave writers
 * idle or twice as loaded. Such an index's slots are split over {@code spread} writers each, by the
 * id's hash: key {@code base + shard + shards * (hash(id) mod spread)}, the smallest spread with
 * which every writer gets a part and none more than 1.25x an even share ({@link KeyRule#spreadOf}). One id
 * still reaches one writer, and each writer's bulks still touch one shard. A slot that carries more
 * than a writer's even share (a routing value with half the documents) is split the same way once
 * the router has counted it ({@link HotSlots}), and joined back when it cools.
 *
 * <p>The promise per-id order rests on: <b>the writes of one id reach one writer at a time</b>.
 * Within one rule of a target an id's key never changes. When the rule changes (the index
 * appears and is read for the first time, is re-created with another shard count, a pipeline is
 * found moving its documents, a slot turns hot or cools), an id's key may change, and the old writer may still hold its last
 * write. A checkpoint completes only once every writer has acknowledged every write routed before
 * its barrier (aligned barriers: {@link SlotExchange#keyed}), so the rule kept here is: <b>an id
 * moves to another writer only once a checkpoint has completed whose barrier came after its last
 * write to the old one</b> (or when both rules give it the same writer: then it does not move).
 *
 * <p>A switch from the previous rule to the new one runs in rounds over the ids' positions (the top
 * 32 bits of a 64-bit fingerprint of the id). Ids whose round has not begun stay on the previous
 * rule. A round begins at the last barrier passed, B; until a checkpoint later than B completes,
 * its ids stay on the previous rule, and those routed after a barrier later than B are remembered
 * ({@link IdsOnOldRules}) with that barrier; then the round is over and the next one begins. An id
 * of an ended round that is not remembered moves: its last write under the previous rule came
 * before a barrier later than B, or before the round began (before B), and a checkpoint later than
 * B completed. A remembered id stays on its rule until a checkpoint later than its barrier
 * completes (each routing by that rule raises the barrier); then it is forgotten and follows the
 * switch, which may by then have moved on. Without checkpoints the previous rule stays: correct,
 * only less well grouped. A change while a target is still switching waits until the switch is
 * over; ids remembered on an older rule do not hold a switch open.
 *
 * <p>Bounded: at most {@link #MAX_REMEMBERED_IDS} ids are remembered (2.5 MB, see
 * {@link IdsOnOldRules}). When a round would need more, it is halved: its upper half returns to
 * "not begun", its remembered ids forgotten. That is safe because while a round waits for its
 * checkpoint none of its ids has moved: they are all on the previous rule, where ids not begun are.
 * The next round is twice the last one's size (the first one covers every id), so a switch with
 * more distinct ids per checkpoint than the bound takes a few more checkpoints. Ids that need no
 * memory are not remembered: those both rules send to the same writer, and those written once a
 * run ({@link DocumentOperation#idUnique()}). A hot id (routed after every barrier before that
 * checkpoint completes) stays on its writer as long as it is hot, not grouped with its shard; one
 * checkpoint without it moves it. Decisions depend on the (target, fingerprint) only, so two ids
 * with one fingerprint are handled as one id: one stays a little longer, none moves early.
 *
 * <p>A completion counts only for a checkpoint whose barrier this router passed: an earlier run's
 * (before a restore) covers none of this run's writes (Flink does not send those since FLINK-24096;
 * this does not depend on it).
 *
 * <p>One instance per router subtask; not thread-safe (the task thread only).
 */
final class SlotKeys {

    /** The most ids remembered on old rules, all targets together. */
    static final int MAX_REMEMBERED_IDS = 1 << 16;

    /** A target not routed to for this many checkpoints is forgotten (date-named indices come and go). */
    private static final long FORGET_IDLE_TARGETS_CHECKPOINTS = 60;

    /** Positions of ids in a switch's rounds: the top 32 bits of their fingerprint. */
    private static final long POSITIONS = 1L << 32;

    static final class Target {
        /** Spreads this target's entries in {@link IdsOnOldRules}. */
        final int seed;

        KeyRule rule;
        /** While switching: the rule ids leave. Null when no switch runs. */
        KeyRule previous;
        /** The current round's positions: [roundFrom, roundTo); positions from roundTo on have not begun. */
        long roundFrom;

        long roundTo;
        /** The last barrier passed when the current round began. */
        long roundBegan;
        /** Ids of this target in {@link IdsOnOldRules}. */
        int remembered;

        long lastUsedBarrier;
        /** Documents per shard of {@link #rule}'s layout in the current window ({@link HotSlots}); null until one is counted. */
        int[] slotCounts;

        Target(int seed) {
            this.seed = seed;
        }
    }

    private final int writers;
    private final int maxRemembered;
    private final Map<String, Target> byTarget = new HashMap<>();
    private final IdsOnOldRules onOldRules = new IdsOnOldRules();
    private long firstBarrier = -1;
    private long lastBarrier = -1;
    private long lastCompleted = -1;
    private int roundRobin;
    private int targetsMade;
    /** Documents routed in the current window of {@link HotSlots#WINDOW}. */
    private int routedInWindow;
    /** Slots split because they are hot, as of the last window: read by the metrics thread. */
    private volatile int hotSlots;

    /** @param writers the writer subtasks the keys are spread over ({@code key mod writers}) */
    SlotKeys(int writers) {
        this(writers, MAX_REMEMBERED_IDS);
    }

    @VisibleForTesting
    SlotKeys(int writers, int maxRemembered) {
        this.writers = writers;
        this.maxRemembered = maxRemembered;
    }

    /** The key of {@code op}, whose shard its router predicted as {@code prediction}. */
    int keyOf(DocumentOperation op, PredictedShard prediction) {
        Target target = byTarget.get(op.index());
        if (target == null) {
            target = new Target(KeyRule.spread(targetsMade++));
            target.rule = new KeyRule(target, prediction, writers);
            byTarget.put(op.index(), target);
        }
        target.lastUsedBarrier = lastBarrier;
        Object generation =
                prediction.layout() == null ? null : prediction.layout().generation();
        if (target.previous == null && generation != target.rule.generation) {
            change(target, prediction);
        }
        int key;
        if (generation == target.rule.generation) {
            key = orById(target.rule.slotKey(op, prediction), op);
            count(target, prediction.batchShard());
        } else {
            key = orById(target.rule.slotKey(op), op);
            count(target, -1);
        }
        if (target.previous == null && target.remembered == 0) {
            return key;
        }
        if (op.id() == null || op.idUnique()) {
            return key; // no other write of this id to keep in order
        }
        return keyWhileMoving(target, op, key);
    }

    /** A new layout of {@code target}: its switch begins (a change during a switch waits for its end). */
    private void change(Target target, PredictedShard prediction) {
        KeyRule next = new KeyRule(target, prediction, writers);
        if (next.routing == null && target.rule.routing == null) {
            target.rule = next; // both key by id: no id changes writer
            return;
        }
        switchTo(target, next);
    }

    /** Counts a document of {@code shard} (-1: none under the current rule's layout) and, once a window is full, looks for hot slots. */
    private void count(Target target, int shard) {
        if (shard >= 0 && target.rule.routing != null) {
            if (target.slotCounts == null || target.slotCounts.length != target.rule.shards) {
                target.slotCounts = new int[target.rule.shards];
            }
            target.slotCounts[shard]++;
        }
        if (++routedInWindow == HotSlots.WINDOW) {
            routedInWindow = 0;
            lookForHotSlots();
        }
    }

    /** A window is full: each target's slots split or joined as their counts say ({@link HotSlots}), the counts reset. */
    private void lookForHotSlots() {
        int split = 0;
        for (Target t : byTarget.values()) {
            if (t.slotCounts == null) {
                continue;
            }
            int[] hot = t.previous == null && t.slotCounts.length == t.rule.shards
                    ? HotSlots.next(t.slotCounts, HotSlots.WINDOW, writers, t.rule)
                    : null;
            if (hot != null) {
                switchTo(t, new KeyRule(t.rule, hot)); // the same layout, hot slots split anew
            }
            java.util.Arrays.fill(t.slotCounts, 0);
            split += t.rule.hotSlots();
        }
        hotSlots = split;
    }

    /** Ids of {@code target} begin to move from its rule to {@code next}, in rounds. */
    private void switchTo(Target target, KeyRule next) {
        target.previous = target.rule;
        target.rule = next;
        target.roundFrom = 0;
        target.roundTo = POSITIONS;
        target.roundBegan = lastBarrier;
    }

    /** The key of {@code op}, whose target switches or has ids on old rules; {@code key}: its key under the new rule. */
    private int keyWhileMoving(Target target, DocumentOperation op, int key) {
        long fingerprint = fingerprint(op.id());
        int slot = onOldRules.find(target, fingerprint);
        if (slot >= 0) {
            // Its last write under that rule may be unacknowledged: entries leave once it is not (completed).
            onOldRules.routedAfter(slot, lastBarrier);
            return keyBy(onOldRules.rule(slot), op);
        }
        if (target.previous == null) {
            return key;
        }
        long position = fingerprint >>> 32;
        if (position >= target.roundTo) {
            return keyBy(target.previous, op); // its round has not begun
        }
        if (position < target.roundFrom) {
            return key; // its round is over
        }
        // Its round waits for a checkpoint later than the barrier it began after (completed begins the next).
        int previousKey = keyBy(target.previous, op);
        if (previousKey % writers == key % writers) {
            return key; // the same writer either way: nothing to wait for
        }
        if (lastBarrier > target.roundBegan) {
            remember(target, fingerprint, position);
        }
        return previousKey;
    }

    /**
     * Remembers an id of {@code target}'s current round, routed by the previous rule after a
     * barrier later than the round's first one. With no room left, halves the round until the id
     * is out of it or there is room.
     */
    private void remember(Target target, long fingerprint, long position) {
        while (onOldRules.size() >= maxRemembered) {
            long to = target.roundFrom + (target.roundTo - target.roundFrom) / 2;
            long from = to;
            long until = target.roundTo;
            KeyRule previous = target.previous;
            // Nothing of this round has moved yet: its upper half goes back to not begun, on the previous rule.
            onOldRules.removeIf((f, rule, barrier) -> rule == previous && f >>> 32 >= from && f >>> 32 < until);
            target.roundTo = to;
            if (position >= to) {
                return;
            }
        }
        onOldRules.add(fingerprint, target.previous, lastBarrier);
    }

    /** A checkpoint barrier passes the router: what it routes from now on is not covered by this checkpoint. */
    void barrier(long checkpointId) {
        if (firstBarrier < 0) {
            firstBarrier = checkpointId;
        }
        lastBarrier = Math.max(lastBarrier, checkpointId);
    }

    /**
     * A checkpoint completed: every write routed before its barrier is acknowledged (and durable,
     * with the fence). Remembered ids it covers are forgotten; switching targets whose round began
     * before its barrier go on to the next round, or end their switch. Also forgets targets not
     * routed to for {@value #FORGET_IDLE_TARGETS_CHECKPOINTS} checkpoints.
     */
    void completed(long checkpointId) {
        if (checkpointId < firstBarrier || checkpointId > lastBarrier || checkpointId <= lastCompleted) {
            return; // not a checkpoint whose barrier passed this router, or not a newer one
        }
        lastCompleted = checkpointId;
        if (onOldRules.size() > 0) {
            onOldRules.removeIf((fingerprint, rule, barrier) -> barrier < checkpointId);
        }
        for (Iterator<Target> it = byTarget.values().iterator(); it.hasNext(); ) {
            Target target = it.next();
            if (target.previous != null && lastCompleted > target.roundBegan) {
                nextRound(target);
            }
            if (target.previous == null
                    && target.remembered == 0
                    && target.lastUsedBarrier + FORGET_IDLE_TARGETS_CHECKPOINTS < lastCompleted) {
                it.remove();
            }
        }
    }

    /** {@code target}'s round is over: the next one begins, twice its size, or the switch ends. */
    private void nextRound(Target target) {
        long size = target.roundTo - target.roundFrom;
        target.roundFrom = target.roundTo;
        if (target.roundFrom >= POSITIONS) {
            target.previous = null; // ids still on it are remembered
            return;
        }
        target.roundTo = target.roundFrom + Math.min(POSITIONS - target.roundFrom, Math.max(1, 2 * size));
        target.roundBegan = lastBarrier;
    }

    /** The key of {@code op} by {@code rule}, predicted under another layout than the rule's. */
    private int keyBy(KeyRule rule, DocumentOperation op) {
        return orById(rule.slotKey(op), op);
    }

    private int orById(int slotKey, DocumentOperation op) {
        return slotKey != KeyRule.NO_SLOT ? slotKey : byId(op);
    }

    /** A key that keeps one id on one writer: its id's (or routing's) hash; documents with neither are spread. */
    private int byId(DocumentOperation op) {
        String by = op.id() != null ? op.id() : op.routing();
        return by != null ? KeyRule.spread(by.hashCode()) : (roundRobin++ & Integer.MAX_VALUE);
    }

    /** Slots split over several writers because they are hot ({@link HotSlots}) as of the last window, for the metric (any thread). */
    int hotSlots() {
        return hotSlots;
    }

    /** Ids routed with an earlier rule that still wait for a checkpoint (for the metric and tests). */
    int remembered() {
        return onOldRules.size();
    }

    /** A 64-bit hash of {@code id} (FNV-1a, then MurmurHash3's finalizer), never 0. */
    static long fingerprint(String id) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < id.length(); i++) {
            h = (h ^ id.charAt(i)) * 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h == 0 ? 1 : h;
    }
}
