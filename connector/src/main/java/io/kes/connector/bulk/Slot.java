package io.kes.connector.bulk;

/**
 * The buffer of one (target, shard) slot: everything in it was predicted for one shard, so the bulk
 * it becomes never waits on another shard. A target's documents of unpredictable shard share a
 * slot with shard -1; with shard grouping off there is a single mixed slot.
 */
final class Slot {

    final String index;
    final int shard;
    BulkBody body;
    long firstDocAtMillis;
    /** Size of this slot's last body: the next one starts that big, so it never grows by copying. */
    int lastBodyBytes;
    /** What the current body was allocated with (the writer keeps the sum within a budget). */
    int capacity;
    /** This slot's bodies waiting in a node's queue, and which queue: the next one queues behind them. */
    int queued;

    NodeBudgets.Budget queuedIn;
    /** This slot's bulks sent and not over (retries included): a buffer that is not full waits for them. */
    int inFlight;
    /** Some of them wait for the node its primary left (logged once per such run). */
    boolean behindMovedPrimary;

    Slot(String index, int shard) {
        this.index = index;
        this.shard = shard;
    }

    BulkBody take() {
        BulkBody taken = body;
        body = null;
        lastBodyBytes = taken.sizeInBytes();
        return taken;
    }

    @Override
    public String toString() {
        return index == null ? "mixed slot" : "slot " + index + "[" + shard + "]";
    }
}
