package io.kes.connector.exchange;

/**
 * When a slot is hot: one (index, shard) slot that carries more documents than one writer's even
 * share, such as the shard of a routing value with half the documents, would make its one writer
 * the job's bottleneck while others idle. A router counts the documents of each slot in windows of
 * {@link #WINDOW} documents it routes, and {@link #next} says over how many writers each slot is
 * split ({@link KeyRule#hotSpread}); {@link SlotKeys} then switches ids to that rule as it does for a
 * new layout, so one id still reaches one writer at a time and each bulk still touches one shard.
 *
 * <p>A slot's load is counted in writers' even shares: {@code w = documents * writers / window}.
 * A slot split over {@code s} writers (1: not split; an index with fewer shards than writers has
 * its slots split already, {@link KeyRule#spreadOf}) is split over {@code ceil(w)} when {@code w >
 * 1.25 s} (a part would carry over a quarter more than an even share) and joined back to {@code
 * ceil(w)} when {@code w < s / 2}; between the two it stays, so a share near a boundary does not
 * switch rules back and forth.
 */
final class HotSlots {

    /** Documents a router routes between two looks at its slots' shares (~1-2 s at 2,500 documents/s per router). */
    static final int WINDOW = 4096;

    private HotSlots() {}

    /**
     * The hot spread of each shard of {@code rule} after a window in which its slots got {@code
     * counts} of the router's {@code window} documents, or null when no slot's spread changes.
     */
    static int[] next(int[] counts, int window, int writers, KeyRule rule) {
        int[] next = null;
        for (int shard = 0; shard < counts.length; shard++) {
            // a slot of an index with fewer shards than writers is split already (KeyRule.spread)
            int current = Math.max(rule.spread, rule.hotSpread(shard));
            double load = (double) counts[shard] * writers / window;
            int wanted = current;
            if (load > 1.25 * current || load < current / 2.0) {
                wanted = (int) Math.max(1, Math.min(writers, Math.ceil(load)));
            }
            wanted = wanted > rule.spread ? wanted : 1;
            if (wanted != rule.hotSpread(shard)) {
                if (next == null) {
                    next = new int[counts.length];
                    for (int s = 0; s < counts.length; s++) {
                        next[s] = rule.hotSpread(s);
                    }
                }
                next[shard] = wanted;
            }
        }
        return next;
    }
}
