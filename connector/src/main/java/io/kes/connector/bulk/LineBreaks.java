package io.kes.connector.bulk;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/** Line breaks in a source, which JSON allows as white space and NDJSON uses to separate lines. */
final class LineBreaks {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    /** 0x0E in every byte: CR (0x0D) and LF (0x0A) lie below it ({@link #belowMarks}). */
    private static final long EVERY_BYTE_0E = 0x0e0e0e0e0e0e0e0eL;

    private static final long EVERY_BYTE_HIGH_BIT = 0x8080808080808080L;

    private LineBreaks() {}

    /**
     * Turns CR and LF in {@code b[from, to)} into spaces. Every source byte passes through here, so
     * it tests sixteen bytes at a time with one branch (most documents are single-line JSON and
     * have neither) and looks byte by byte only at a block with a byte below 0x0E: CR, LF, or a tab
     * or control byte, which compact JSON does not hold. Testing for CR and LF each, eight bytes at
     * a time, took twice as long (135 against 59 ns per 580-byte document, its copy included) and was the largest
     * frame of kes's own code in a chained writer's steady profile. A multi-byte UTF-8 character
     * never contains 0x0A or 0x0D, and the test reads bytes as unsigned, so it is exact.
     */
    static boolean replace(byte[] b, int from, int to) {
        boolean replaced = false;
        int i = from;
        for (; i + 2 * Long.BYTES <= to; i += 2 * Long.BYTES) {
            long first = (long) LONGS.get(b, i);
            long second = (long) LONGS.get(b, i + Long.BYTES);
            if (((belowMarks(first) | belowMarks(second)) & EVERY_BYTE_HIGH_BIT) != 0) {
                replaced |= replaceBytewise(b, i, i + 2 * Long.BYTES);
            }
        }
        return replaceBytewise(b, i, to) | replaced;
    }

    private static boolean replaceBytewise(byte[] b, int from, int to) {
        boolean replaced = false;
        for (int i = from; i < to; i++) {
            if (b[i] == '\n' || b[i] == '\r') {
                b[i] = ' ';
                replaced = true;
            }
        }
        return replaced;
    }

    /**
     * Sets the high bit of a byte of the result for some byte of {@code word} below 0x0E (the lowest
     * such byte's for sure; higher ones may be set by its borrow, which only makes the block look
     * at its bytes), never for a word without one: the "has a byte less than n" test for n <= 128.
     */
    private static long belowMarks(long word) {
        return (word - EVERY_BYTE_0E) & ~word;
    }
}
