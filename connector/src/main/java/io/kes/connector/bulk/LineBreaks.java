package io.kes.connector.bulk;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/** Line breaks in a source, which JSON allows as white space and NDJSON uses to separate lines. */
final class LineBreaks {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long EVERY_BYTE_LF = 0x0a0a0a0a0a0a0a0aL;
    private static final long EVERY_BYTE_CR = 0x0d0d0d0d0d0d0d0dL;

    private LineBreaks() {}

    /**
     * Turns CR and LF in {@code b[from, to)} into spaces. Every source byte passes through here, so
     * it tests eight bytes at a time (most documents are single-line JSON and have neither); a
     * multi-byte UTF-8 character never contains 0x0A or 0x0D, so a byte-wise test is exact.
     */
    static boolean replace(byte[] b, int from, int to) {
        boolean replaced = false;
        int i = from;
        for (; i + Long.BYTES <= to; i += Long.BYTES) {
            long word = (long) LONGS.get(b, i);
            if (hasByte(word, EVERY_BYTE_LF) || hasByte(word, EVERY_BYTE_CR)) {
                replaced |= replaceBytewise(b, i, i + Long.BYTES);
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

    /** Whether some byte of {@code word} equals the byte repeated in {@code pattern} (the "has zero byte" test on their XOR). */
    private static boolean hasByte(long word, long pattern) {
        long x = word ^ pattern;
        return ((x - 0x0101010101010101L) & ~x & 0x8080808080808080L) != 0;
    }
}
