package io.kes.jobs.decode;

/**
 * MurmurHash3 x64 128-bit (Austin Appleby's reference, seed 0), for ids made from field values:
 * fast, well spread over shards, and 128 bits make collisions between distinct documents
 * negligible. Returns the two 64-bit halves as 16 bytes, h1 then h2, each little-endian, the
 * byte order of the reference implementation and of Guava's {@code murmur3_128()}.
 */
public final class Murmur3Hash128 {

    private static final long C1 = 0x87c37b91114253d5L;
    private static final long C2 = 0x4cf5ad432745937fL;

    private Murmur3Hash128() {}

    public static byte[] hash(byte[] data) {
        int len = data.length;
        int blocks = len / 16;
        long h1 = 0;
        long h2 = 0;
        for (int i = 0; i < blocks; i++) {
            long k1 = getLong(data, i * 16);
            long k2 = getLong(data, i * 16 + 8);
            h1 ^= mixK1(k1);
            h1 = Long.rotateLeft(h1, 27) + h2;
            h1 = h1 * 5 + 0x52dce729;
            h2 ^= mixK2(k2);
            h2 = Long.rotateLeft(h2, 31) + h1;
            h2 = h2 * 5 + 0x38495ab5;
        }
        long k1 = 0;
        long k2 = 0;
        int tail = blocks * 16;
        switch (len & 15) {
            case 15:
                k2 ^= (long) (data[tail + 14] & 0xff) << 48;
            case 14:
                k2 ^= (long) (data[tail + 13] & 0xff) << 40;
            case 13:
                k2 ^= (long) (data[tail + 12] & 0xff) << 32;
            case 12:
                k2 ^= (long) (data[tail + 11] & 0xff) << 24;
            case 11:
                k2 ^= (long) (data[tail + 10] & 0xff) << 16;
            case 10:
                k2 ^= (long) (data[tail + 9] & 0xff) << 8;
            case 9:
                k2 ^= data[tail + 8] & 0xff;
                h2 ^= mixK2(k2);
            case 8:
                k1 ^= (long) (data[tail + 7] & 0xff) << 56;
            case 7:
                k1 ^= (long) (data[tail + 6] & 0xff) << 48;
            case 6:
                k1 ^= (long) (data[tail + 5] & 0xff) << 40;
            case 5:
                k1 ^= (long) (data[tail + 4] & 0xff) << 32;
            case 4:
                k1 ^= (long) (data[tail + 3] & 0xff) << 24;
            case 3:
                k1 ^= (long) (data[tail + 2] & 0xff) << 16;
            case 2:
                k1 ^= (long) (data[tail + 1] & 0xff) << 8;
            case 1:
                k1 ^= data[tail] & 0xff;
                h1 ^= mixK1(k1);
            default:
        }
        h1 ^= len;
        h2 ^= len;
        h1 += h2;
        h2 += h1;
        h1 = fmix64(h1);
        h2 = fmix64(h2);
        h1 += h2;
        h2 += h1;
        byte[] out = new byte[16];
        putLongLittleEndian(out, 0, h1);
        putLongLittleEndian(out, 8, h2);
        return out;
    }

    private static long mixK1(long k1) {
        k1 *= C1;
        k1 = Long.rotateLeft(k1, 31);
        return k1 * C2;
    }

    private static long mixK2(long k2) {
        k2 *= C2;
        k2 = Long.rotateLeft(k2, 33);
        return k2 * C1;
    }

    private static long fmix64(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        k ^= k >>> 33;
        return k;
    }

    private static long getLong(byte[] b, int at) {
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = (v << 8) | (b[at + i] & 0xff);
        }
        return v;
    }

    private static void putLongLittleEndian(byte[] b, int at, long v) {
        for (int i = 0; i < 8; i++) {
            b[at + i] = (byte) (v >>> (8 * i));
        }
    }
}
