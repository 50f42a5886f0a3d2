package io.kes.connector.routing;

import java.lang.ref.WeakReference;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.apache.flink.annotation.Internal;

/**
 * A {@link ShardPredictor}'s predictions as numbers that cross the exchange in a few bytes and
 * that the writers of the same JVM resolve to the very prediction the router made (a layout's
 * number, the kind of prediction, the shard). Thread-safe: the lock only for a layout's first
 * reference.
 */
@Internal
final class PredictionReferences {

    /**
     * Layouts a reference can name: the newest this many referenced, and only while something still
     * holds them (the table, or a buffered document's prediction): weakly held, so that a layout
     * read again every minute for months, of an index with hundreds of shards, costs no memory
     * here once replaced. A reference to any other is predicted again.
     */
    static final int REFERENCED_LAYOUTS = 4096;

    /** The predictor as its references name it: random, so that another JVM's never matches. */
    final long id = ThreadLocalRandom.current().nextLong() | 1;
    /** Layouts referenced so far, by the low bits of their number; an older one's slot is taken by a newer one. */
    private final AtomicReferenceArray<WeakReference<IndexLayout>> referenced =
            new AtomicReferenceArray<>(REFERENCED_LAYOUTS);
    /** The number of the last layout referenced (under this object's lock). */
    private int lastLayoutNumber;

    /**
     * {@code predicted} (one of this predictor's predictions) as a number that crosses the exchange
     * in a few bytes: the number of its layout and which of the layout's predictions it is. 0 for
     * {@link PredictedShard#UNKNOWN}, which its writer predicts again (the index may exist by then).
     * Called on the router's thread right after {@link ShardPredictor#predict}; the lock only for a layout's
     * first reference.
     */
    long referenceOf(PredictedShard predicted) {
        IndexLayout layout = predicted.layout();
        if (layout == null) {
            return 0;
        }
        int number = layout.referenceNumber; // racy read: 0 or its number, and 0 takes the lock
        if (number == 0) {
            number = numberOf(layout);
        }
        int kind = predicted.knowsShard() ? SHARD : predicted.batchShard() >= 0 ? MAY_MOVE : ANY_SHARD;
        int shard = predicted.knowsShard() ? predicted.shard() : Math.max(0, predicted.batchShard());
        return ((long) number << 32) | ((long) kind << 30) | shard;
    }

    private static final int SHARD = 1;
    private static final int MAY_MOVE = 2;
    private static final int ANY_SHARD = 3;

    private synchronized int numberOf(IndexLayout layout) {
        if (layout.referenceNumber == 0) {
            int number = ++lastLayoutNumber == 0 ? ++lastLayoutNumber : lastLayoutNumber; // 0 means none
            layout.referenceNumber = number;
            // publishes the number with the layout
            referenced.set(number & (REFERENCED_LAYOUTS - 1), new WeakReference<>(layout));
        }
        return layout.referenceNumber;
    }

    /**
     * The prediction {@code reference} stands for, if {@code predictor} is this one's {@link #id} and its layout
     * is still among the newest {@link #REFERENCED_LAYOUTS} and held; otherwise null, and the caller
     * predicts again. Without the lock.
     */
    PredictedShard resolve(long predictor, long reference) {
        if (predictor != id || reference == 0) {
            return null;
        }
        int number = (int) (reference >>> 32);
        WeakReference<IndexLayout> held = referenced.get(number & (REFERENCED_LAYOUTS - 1));
        IndexLayout layout = held == null ? null : held.get();
        if (layout == null || layout.referenceNumber != number) {
            return null;
        }
        int shard = (int) (reference & ((1 << 30) - 1));
        return switch ((int) (reference >>> 30) & 3) {
            case SHARD -> layout.shard(shard);
            case MAY_MOVE -> layout.mayMoveFrom(shard);
            default -> layout.anyShard();
        };
    }
}
