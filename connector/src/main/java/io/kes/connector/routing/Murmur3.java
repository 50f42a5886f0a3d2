package io.kes.connector.routing;

import java.util.Objects;
import org.apache.flink.annotation.Internal;

/**
 * Murmur3 x86_32 with seed 0: the hash Elasticsearch routes documents with.
 *
 * <p>Why this exact variant: Elasticsearch's {@code Murmur3HashFunction.hash(String)} writes each
 * UTF-16 code unit of the routing value as two bytes, little-endian ({@code (byte) c},
 * {@code (byte) (c >>> 8)}), and runs Lucene's {@code StringHelper.murmurhash3_x86_32} over those
 * bytes with seed 0. It hashes UTF-16 units, not UTF-8 and not code points, so a surrogate pair is
 * two units (four bytes) like any other two chars. kes must reproduce it bit for bit to predict the
 * shard of a document on the client; the formula was verified against a live node (see
 * DESIGN.md, "Verified on these machines").
 *
 * <p>{@link #hash(CharSequence)} runs once per document on the hot path, so it reads chars directly
 * (two chars make one 4-byte little-endian block) instead of building a byte array.
 */
@Internal
public final class Murmur3 {

    private static final int C1 = 0xcc9e2d51;
    private static final int C2 = 0x1b873593;

    private Murmur3() {}

    /**
     * Hash of the UTF-16LE bytes of {@code s}, equal to Elasticsearch's
     * {@code Murmur3HashFunction.hash(String)}. Allocates nothing. A String, not a CharSequence:
     * every document's id passes here twice, and under C1 (the JIT of {@code bin/kes run}) each
     * {@code charAt} of an interface is a call through an itable stub.
     */
    public static int hash(String s) {
        int len = s.length();
        int h1 = 0;
        int pairs = len >>> 1;
        for (int i = 0; i < pairs; i++) {
            // chars c0, c1 laid out as bytes c0lo c0hi c1lo c1hi, read as one little-endian int
            int k1 = (s.charAt(2 * i) & 0xffff) | (s.charAt(2 * i + 1) << 16);
            h1 = mixH1(h1, k1);
        }
        if ((len & 1) != 0) {
            // an odd char leaves a 2-byte tail
            int k1 = s.charAt(len - 1) & 0xffff;
            h1 ^= mixK1(k1);
        }
        return fmix32(h1 ^ (len * 2));
    }

    /**
     * Murmur3 x86_32, seed 0, over {@code bytes[offset, offset + len)}; the same function as Lucene's
     * {@code StringHelper.murmurhash3_x86_32(bytes, offset, len, 0)}.
     */
    public static int hash(byte[] bytes, int offset, int len) {
        Objects.checkFromIndexSize(offset, len, bytes.length);
        int h1 = 0;
        int roundedEnd = offset + (len & ~3);
        for (int i = offset; i < roundedEnd; i += 4) {
            int k1 = (bytes[i] & 0xff) | (bytes[i + 1] & 0xff) << 8 | (bytes[i + 2] & 0xff) << 16 | bytes[i + 3] << 24;
            h1 = mixH1(h1, k1);
        }
        int k1 = 0;
        switch (len & 3) {
            case 3:
                k1 = (bytes[roundedEnd + 2] & 0xff) << 16;
            // fall through
            case 2:
                k1 |= (bytes[roundedEnd + 1] & 0xff) << 8;
            // fall through
            case 1:
                k1 |= bytes[roundedEnd] & 0xff;
                h1 ^= mixK1(k1);
                break;
            default:
                break;
        }
        return fmix32(h1 ^ len);
    }

    private static int mixK1(int k1) {
        k1 *= C1;
        k1 = Integer.rotateLeft(k1, 15);
        return k1 * C2;
    }

    private static int mixH1(int h1, int k1) {
        h1 ^= mixK1(k1);
        h1 = Integer.rotateLeft(h1, 13);
        return h1 * 5 + 0xe6546b64;
    }

    private static int fmix32(int h1) {
        h1 ^= h1 >>> 16;
        h1 *= 0x85ebca6b;
        h1 ^= h1 >>> 13;
        h1 *= 0xc2b2ae35;
        h1 ^= h1 >>> 16;
        return h1;
    }
}
