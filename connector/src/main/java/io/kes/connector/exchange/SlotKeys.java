package io.kes.connector.exchange;

import io.kes.connector.DocumentOperation;
import io.kes.connector.routing.IndexLayout;
import io.kes.connector.routing.IndexRouting;
import io.kes.connector.routing.PredictedShard;
import io.kes.connector.routing.ShardPredictor;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

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
 * which every writer gets a part and none more than 1.25x an even share ({@link #spreadOf}). One id
 * still reaches one writer, and each writer's bulks still touch one shard.
 *
 * <p>The promise per-id order rests on: <b>the writes of one id reach one writer at a time</b>.
 * Within one layout of a target an id's key never changes. When the layout changes (the index
 * appears and is read for the first time, is re-created with another shard count, a pipeline is
 * found moving its documents), an id's key may change, and the old writer may still hold its
 * last write. So the target keeps its previous rule until that cannot be: every id keeps its old
 * key until a checkpoint whose barrier came after the change completed (then every write routed
 * before that barrier is acknowledged: a checkpoint completes only then); ids routed with the old
 * key after such a barrier keep it, remembered with that barrier, until a later checkpoint
 * completes too. Without checkpoints the old rule stays: correct, only less well grouped.
 * A change while a target is still switching waits until the switch is over.
 *
 * <p>One instance per router subtask; not thread-safe (the task thread only).
 */
final class SlotKeys {

    /** A target not routed to for this many checkpoints is forgotten (date-named indices come and go). */
    private static final long FORGET_IDLE_TARGETS_CHECKPOINTS = 60;

    /** How one layout of a target keys documents; compares by the layout's generation. */
    private static final class Rule {
        final Object generation;
        final IndexRouting routing;
        final int base;
        final int shards;
        /** How many writers share each of the index's slots (by the id's hash). */
        final int spread;

        Rule(PredictedShard prediction, int writers) {
            IndexLayout layout = prediction.layout();
            boolean slots = layout != null && layout.routing() != null;
            this.generation = layout == null ? null : layout.generation();
            this.routing = slots ? layout.routing() : null;
            this.base = slots ? spread(layout.index().hashCode()) : 0;
            this.shards = slots ? layout.numberOfShards() : 0;
            this.spread = slots ? spreadOf(shards, writers) : 1;
        }

        /** The key of {@code op}, predicted under another layout than this rule's. */
        int key(DocumentOperation op, SlotKeys keys) {
            int shard = ShardPredictor.shardOf(routing, op);
            return shard < 0 ? keys.byId(op) : slotKey(shard, op);
        }

        /** The key of {@code op}, predicted as {@code prediction} under this rule's layout. */
        int key(DocumentOperation op, PredictedShard prediction, SlotKeys keys) {
            return prediction.batchShard() >= 0 && routing != null
                    ? slotKey(prediction.batchShard(), op)
                    : keys.byId(op);
        }

        private int slotKey(int shard, DocumentOperation op) {
            if (spread == 1) {
                return base + shard;
            }
            String by = op.id() != null ? op.id() : op.routing();
            int part = by != null ? spread(by.hashCode()) % spread : 0;
            return base + shard + shards * part;
        }
    }

    private static final class Target {
        Rule rule;
        /** While switching: the rule ids keep until their last write under it is acknowledged. */
        Rule previous;
        /** The last barrier passed when the switch began. */
        long changedAfterBarrier;
        /** Ids routed with {@link #previous} after a barrier that followed the change → that barrier. */
        Map<String, Long> routedSince;

        long lastUsedBarrier;
    }

    private final int writers;
    private final Map<String, Target> byTarget = new HashMap<>();
    private long lastBarrier = -1;
    private long lastCompleted = -1;
    private int roundRobin;

    /** @param writers the writer subtasks the keys are spread over ({@code key mod writers}) */
    SlotKeys(int writers) {
        this.writers = writers;
    }

    /** The key of {@code op}, whose shard its router predicted as {@code prediction}. */
    int keyOf(DocumentOperation op, PredictedShard prediction) {
        Target target = byTarget.get(op.index());
        if (target == null) {
            target = new Target();
            target.rule = new Rule(prediction, writers);
            byTarget.put(op.index(), target);
        }
        target.lastUsedBarrier = lastBarrier;
        Object generation =
                prediction.layout() == null ? null : prediction.layout().generation();
        if (target.previous == null) {
            if (generation == target.rule.generation) {
                return target.rule.key(op, prediction, this);
            }
            Rule next = new Rule(prediction, writers);
            if (next.routing == null && target.rule.routing == null) {
                target.rule = next; // both key by id: no id changes writer
                return next.key(op, prediction, this);
            }
            target.previous = target.rule;
            target.rule = next;
            target.changedAfterBarrier = lastBarrier;
            target.routedSince = new HashMap<>();
        }
        int key = generation == target.rule.generation
                ? target.rule.key(op, prediction, this)
                : target.rule.key(op, this);
        String id = op.id();
        if (id == null) {
            return key; // no id, no order to keep
        }
        Long routedAfter = target.routedSince.get(id);
        boolean oldWriteMayBeInFlight =
                lastCompleted <= target.changedAfterBarrier || (routedAfter != null && lastCompleted <= routedAfter);
        if (!oldWriteMayBeInFlight) {
            if (routedAfter != null) {
                target.routedSince.remove(id);
            }
            return key;
        }
        if (lastBarrier > target.changedAfterBarrier) {
            target.routedSince.put(id, lastBarrier);
        }
        return target.previous.key(op, this);
    }

    /** A checkpoint barrier passes the router: what it routes from now on is not covered by this checkpoint. */
    void barrier(long checkpointId) {
        lastBarrier = Math.max(lastBarrier, checkpointId);
    }

    /**
     * A checkpoint completed: every write routed before its barrier is acknowledged (and durable,
     * with the fence). Ids whose old-rule writes it covers switch; a target with none left ends
     * its switch. Also forgets targets not routed to for {@value #FORGET_IDLE_TARGETS_CHECKPOINTS} checkpoints.
     */
    void completed(long checkpointId) {
        lastCompleted = Math.max(lastCompleted, checkpointId);
        for (Iterator<Target> it = byTarget.values().iterator(); it.hasNext(); ) {
            Target target = it.next();
            if (target.previous != null && lastCompleted > target.changedAfterBarrier) {
                target.routedSince.values().removeIf(barrier -> barrier < lastCompleted);
                if (target.routedSince.isEmpty()) {
                    target.previous = null;
                    target.routedSince = null;
                }
            }
            if (target.previous == null && target.lastUsedBarrier + FORGET_IDLE_TARGETS_CHECKPOINTS < lastCompleted) {
                it.remove();
            }
        }
    }

    /** A key that keeps one id on one writer: its id's (or routing's) hash; documents with neither are spread. */
    private int byId(DocumentOperation op) {
        String by = op.id() != null ? op.id() : op.routing();
        return by != null ? spread(by.hashCode()) : (roundRobin++ & Integer.MAX_VALUE);
    }

    /** Ids routed with a previous rule that still wait for a checkpoint (for tests and the bound). */
    int remembered() {
        int n = 0;
        for (Target target : byTarget.values()) {
            n += target.routedSince == null ? 0 : target.routedSince.size();
        }
        return n;
    }

    /**
     * Over how many writers each of an index's {@code shards} slots is split: the smallest spread
     * with which every writer gets a part and none gets more than 1.25x an even share. The keys
     * {@code base .. base + shards * spread - 1} are consecutive, so {@code key mod writers} hands
     * each writer {@code floor} or {@code ceil} of {@code shards * spread / writers} of them.
     */
    static int spreadOf(int shards, int writers) {
        if (shards <= 0 || writers <= 1) {
            return 1;
        }
        for (int spread = 1; ; spread++) {
            long parts = (long) shards * spread;
            long mostPerWriter = (parts + writers - 1) / writers;
            // mostPerWriter / parts <= 1.25 / writers, in integers
            if (parts >= writers && 4 * mostPerWriter * writers <= 5 * parts) {
                return spread;
            }
        }
    }

    /** A non-negative int from a hash whose low bits may be poor (String.hashCode of similar names). */
    static int spread(int hash) {
        int h = hash * 0x9E3779B9;
        return (h ^ (h >>> 16)) & 0x3FFFFFFF;
    }
}
