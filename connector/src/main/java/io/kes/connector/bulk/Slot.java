package io.kes.connector.bulk;

import io.kes.connector.cluster.IndexMetadata;
import io.kes.connector.fence.Epochs.Epoch;

/**
 * The buffer of one (target, shard) slot: everything in it was predicted for one shard, so the bulk
 * it becomes never waits on another shard. A target's documents of unpredictable shard share a
 * slot with shard -1; with shard grouping off there is a single mixed slot.
 *
 * <p>Its fields are written by {@link SlotBuffers} only; where its bulks wait and how many are out
 * is its {@link #lane}, written by {@link NodeBudgets} only.
 */
final class Slot {

    final String index;
    final int shard;
    BulkBody body;
    long firstDocAtMillis;
    /**
     * The epoch current when the buffer got its first document: the buffer holds it open, and the
     * bulk it becomes belongs to it ({@link CheckpointDrain#bufferStarted}); null with no buffer.
     */
    Epoch epoch;
    /**
     * Its index's {@code refresh_interval} in milliseconds (negative: none), as read with the layout
     * its slot was made for; Elasticsearch's default where kes has no layout ({@link DepartureRule}).
     */
    final long refreshIntervalMillis;
    /**
     * Sizes of this slot's last few bodies: the next one starts as big as the largest, so it
     * seldom grows by copying (a humongous copy, for G1, at ~1 MB). Under load a slot's bulks
     * alternate between full ones and ones sent part full when their node had room, and starting
     * from the last one's size alone grew most bodies once or twice. A slot whose bulks stay
     * small comes down to their size after as many bodies.
     */
    private final int[] recentSizes = new int[4];

    private int bodiesTaken;
    /** What the current body was allocated with (the writer keeps the sum within a budget). */
    int capacity;
    /** This slot's bulks queued for a node and in flight. */
    final NodeBudgets.Lane lane = new NodeBudgets.Lane();

    Slot(String index, int shard) {
        this(index, shard, IndexMetadata.DEFAULT_REFRESH_INTERVAL.toMillis());
    }

    Slot(String index, int shard, long refreshIntervalMillis) {
        this.index = index;
        this.shard = shard;
        this.refreshIntervalMillis = refreshIntervalMillis;
    }

    BulkBody take() {
        BulkBody taken = body;
        body = null;
        recentSizes[bodiesTaken++ % recentSizes.length] = taken.sizeInBytes();
        return taken;
    }

    /** The largest of the last few bodies' sizes; 0 before the first. */
    int recentBodyBytes() {
        int largest = 0;
        for (int size : recentSizes) {
            largest = Math.max(largest, size);
        }
        return largest;
    }

    @Override
    public String toString() {
        return index == null ? "mixed slot" : "slot " + index + "[" + shard + "]";
    }
}
