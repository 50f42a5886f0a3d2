package io.kes.connector.exchange;

import io.kes.connector.DocumentOperation;
import io.kes.connector.routing.IndexLayout;
import io.kes.connector.routing.IndexRouting;
import io.kes.connector.routing.PredictedShard;
import io.kes.connector.routing.ShardPredictor;

/**
 * How one layout of a target keys documents: the rule {@link SlotKeys} switches ids between when
 * the layout changes. A document whose shard this layout predicts gets its slot's key, {@code base
 * + shard}, or {@code base + shard + shards * (hash(id) mod spread)} when the index's slots are
 * split over {@code spread} writers ({@link #spreadOf}); a hot slot ({@link HotSlots}: one that
 * carries more than a writer's even share, e.g. a routing value with half the documents) is split
 * over the {@code hot[shard]} writers from its own on, {@code base + shard + (hash(id) mod
 * hot[shard])}. Any other document gets no slot key, and {@link SlotKeys} keys it by its id.
 * Compares by the layout's generation (identity) and, within one layout, by instance.
 */
final class KeyRule {

    /** What {@link #slotKey} returns for a document whose shard is unknown (slot keys are never negative). */
    static final int NO_SLOT = -1;

    final SlotKeys.Target owner;
    final Object generation;
    final IndexRouting routing;
    final int base;
    final int shards;
    /** How many writers share each of the index's slots (by the id's hash). */
    final int spread;
    /** Per shard, over how many consecutive writers a hot slot is split (1: not hot); null: none is. */
    final int[] hot;

    KeyRule(SlotKeys.Target owner, PredictedShard prediction, int writers) {
        IndexLayout layout = prediction.layout();
        boolean slots = layout != null && layout.routing() != null;
        this.owner = owner;
        this.generation = layout == null ? null : layout.generation();
        this.routing = slots ? layout.routing() : null;
        this.base = slots ? spread(layout.index().hashCode()) : 0;
        this.shards = slots ? layout.numberOfShards() : 0;
        this.spread = slots ? spreadOf(shards, writers) : 1;
        this.hot = null;
    }

    /** {@code rule} with {@code hot} slots split over more writers (same layout). */
    KeyRule(KeyRule rule, int[] hot) {
        this.owner = rule.owner;
        this.generation = rule.generation;
        this.routing = rule.routing;
        this.base = rule.base;
        this.shards = rule.shards;
        this.spread = rule.spread;
        this.hot = java.util.Arrays.stream(hot).allMatch(s -> s == 1) ? null : hot;
    }

    /** How many of the index's slots this rule splits as hot ones. */
    int hotSlots() {
        int split = 0;
        for (int shard = 0; hot != null && shard < shards; shard++) {
            split += hot[shard] > 1 ? 1 : 0;
        }
        return split;
    }

    /** Over how many writers {@code shard}'s slot is split as a hot one (1: it is not hot). */
    int hotSpread(int shard) {
        return hot == null ? 1 : hot[shard];
    }

    /** The slot key of {@code op}, predicted under another layout than this rule's, or {@link #NO_SLOT}. */
    int slotKey(DocumentOperation op) {
        int shard = ShardPredictor.shardOf(routing, op);
        return shard < 0 ? NO_SLOT : slotKey(shard, op);
    }

    /** The slot key of {@code op}, predicted as {@code prediction} under this rule's layout, or {@link #NO_SLOT}. */
    int slotKey(DocumentOperation op, PredictedShard prediction) {
        return prediction.batchShard() >= 0 && routing != null ? slotKey(prediction.batchShard(), op) : NO_SLOT;
    }

    private int slotKey(int shard, DocumentOperation op) {
        int hotSpread = hotSpread(shard);
        if (spread == 1 && hotSpread == 1) {
            return base + shard;
        }
        String by = op.id() != null ? op.id() : op.routing();
        int hash = by != null ? spread(by.hashCode()) : 0;
        if (hotSpread > spread) {
            return base + shard + hash % hotSpread;
        }
        return base + shard + shards * (hash % spread);
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
