package io.kes.connector.bulk;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * The arrays of bodies whose bulk was answered, for the next buffers to fill. A busy slot's body
 * is 0.5-1 MB: in a 1 GB heap (1 MB regions) that is a humongous object, which G1 places in
 * regions of its own in the old generation, and any such allocation may start a concurrent
 * marking cycle (7 of the 10 cycles of a steady run at 48 shards started so; docs/benchmark.md,
 * "GC, the largest share left"). An array used again is allocated once. At a steady rate bulks are
 * answered about as fast as buffers start, so a few arrays per writer are enough; the writer's
 * heap bound counts them ({@link io.kes.connector.SinkSettings#writerHeapBound}). Task thread only.
 */
final class BodyArrays {

    /** How many answered arrays a writer keeps. */
    static final int KEPT = 4;

    /** Smaller arrays are not kept: they are not humongous, and young collections free them cheaply. */
    private static final int SMALLEST = 64 * 1024;

    private final ArrayDeque<byte[]> free = new ArrayDeque<>(KEPT);
    private final int largest;

    /** @param largest the largest array kept: one a buffer may start with ({@code bulk.max_bytes} and some) */
    BodyArrays(int largest) {
        this.largest = largest;
    }

    /** An array of at least {@code capacity} bytes, and not more than twice that, answered or new. */
    byte[] take(int capacity) {
        for (Iterator<byte[]> it = free.iterator(); it.hasNext(); ) {
            byte[] array = it.next();
            if (array.length >= capacity && array.length / 2 <= capacity) {
                it.remove();
                return array;
            }
        }
        return new byte[capacity];
    }

    /** An array no request reads any longer (its bulk was answered); the oldest kept one goes when full. */
    void giveBack(byte[] array) {
        if (array.length < SMALLEST || array.length > largest) {
            return;
        }
        if (free.size() == KEPT) {
            free.pollFirst();
        }
        free.addLast(array);
    }
}
