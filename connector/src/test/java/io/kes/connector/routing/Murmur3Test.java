package io.kes.connector.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class Murmur3Test {

    /** The bytes Elasticsearch's Murmur3HashFunction.hash(String) hashes: each char as 2 bytes, little-endian. */
    private static byte[] utf16le(CharSequence s) {
        byte[] bytes = new byte[s.length() * 2];
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            bytes[2 * i] = (byte) c;
            bytes[2 * i + 1] = (byte) (c >>> 8);
        }
        return bytes;
    }

    private static int referenceHash(CharSequence s) {
        byte[] bytes = utf16le(s);
        return Murmur3.hash(bytes, 0, bytes.length);
    }

    private static int hashOf(int... unsignedBytes) {
        byte[] bytes = new byte[unsignedBytes.length];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) unsignedBytes[i];
        }
        return Murmur3.hash(bytes, 0, bytes.length);
    }

    private static int hashOfAscii(String s) {
        byte[] bytes = s.getBytes(StandardCharsets.US_ASCII);
        return Murmur3.hash(bytes, 0, bytes.length);
    }

    @Test
    void matchesElasticsearchKnownRoutingHashes() {
        // elastic/elasticsearch server/src/test/java/org/elasticsearch/cluster/routing/operation/hash/murmur3/
        // Murmur3HashFunctionTests#testKnownValues: Murmur3HashFunction.hash(String) over UTF-16LE bytes, seed 0.
        assertThat(Murmur3.hash("hell")).isEqualTo(0x5a0cb7c3);
        assertThat(Murmur3.hash("hello")).isEqualTo(0xd7c31989);
        assertThat(Murmur3.hash("hello w")).isEqualTo(0x22ab2984);
        assertThat(Murmur3.hash("hello wo")).isEqualTo(0xdf0ca123);
        assertThat(Murmur3.hash("hello wor")).isEqualTo(0xe7744d61);
        assertThat(Murmur3.hash("The quick brown fox jumps over the lazy dog")).isEqualTo(0xe07db09c);
        assertThat(Murmur3.hash("The quick brown fox jumps over the lazy cog")).isEqualTo(0x4e63d2ad);
    }

    @Test
    void matchesPublishedMurmur3x86_32VectorsWithSeedZero() {
        // Standard MurmurHash3_x86_32 test vectors for seed 0 (SMHasher reference implementation; the same
        // values are in Python mmh3's and Guava's tests). Exercise every tail length 0..3.
        assertThat(hashOf()).isEqualTo(0);
        assertThat(hashOf(0x00)).isEqualTo(0x514E28B7);
        assertThat(hashOf(0x00, 0x00)).isEqualTo(0x30F4C306);
        assertThat(hashOf(0x00, 0x00, 0x00)).isEqualTo(0x85F0B427);
        assertThat(hashOf(0x00, 0x00, 0x00, 0x00)).isEqualTo(0x2362F9DE);
        assertThat(hashOf(0xff, 0xff, 0xff, 0xff)).isEqualTo(0x76293B50);
        assertThat(hashOf(0x21, 0x43, 0x65, 0x87)).isEqualTo(0xF55B516B);
        assertThat(hashOfAscii("test")).isEqualTo(0xba6bd213);
        assertThat(hashOfAscii("Hello, world!")).isEqualTo(0xc0363e43);
        assertThat(hashOfAscii("The quick brown fox jumps over the lazy dog")).isEqualTo(0x2e4ff723);
        assertThat(hashOfAscii("foo")).isEqualTo(-156908512); // mmh3.hash("foo") in Python mmh3's README
    }

    @Test
    void hashesEmptyStringLikeEmptyBytes() {
        assertThat(Murmur3.hash("")).isEqualTo(0).isEqualTo(Murmur3.hash(new byte[0], 0, 0));
    }

    @Test
    void hashesSurrogatePairsLikeUtf16LittleEndianBytes() {
        String grinning = "\uD83D\uDE00"; // U+1F600, one code point, two UTF-16 units
        assertThat(grinning.codePointCount(0, grinning.length())).isEqualTo(1);
        assertThat(Murmur3.hash(grinning)).isEqualTo(hashOf(0x3D, 0xD8, 0x00, 0xDE));
        // odd number of chars: the pair straddles a 4-byte block boundary
        assertThat(Murmur3.hash("a" + grinning)).isEqualTo(hashOf(0x61, 0x00, 0x3D, 0xD8, 0x00, 0xDE));
        assertThat(Murmur3.hash("id-\uD83D\uDE80-\u00e9\u4e2d"))
                .isEqualTo(referenceHash("id-\uD83D\uDE80-\u00e9\u4e2d"));
        // not UTF-8: Elasticsearch hashes UTF-16 units
        byte[] utf8 = grinning.getBytes(StandardCharsets.UTF_8);
        assertThat(Murmur3.hash(grinning)).isNotEqualTo(Murmur3.hash(utf8, 0, utf8.length));
    }

    @Test
    void hashesLoneSurrogatesAsRawCodeUnits() {
        // String.getBytes would replace a lone surrogate with '?'; Elasticsearch writes the raw unit.
        assertThat(Murmur3.hash("\uD800")).isEqualTo(hashOf(0x00, 0xD8));
        assertThat(Murmur3.hash("x\uDFFF")).isEqualTo(hashOf(0x78, 0x00, 0xFF, 0xDF));
    }

    @Test
    void charPathMatchesUtf16LittleEndianBytePathForRandomStrings() {
        Random random = new Random(20240601L);
        int[][] ranges = {
            {0x20, 0x7f}, // ASCII
            {0xa0, 0x800}, // Latin-1 supplement .. two-byte UTF-8
            {0x800, 0xd800}, // CJK etc., below the surrogates
            {0xe000, 0x10000}, // above the surrogates
        };
        for (int n = 0; n < 5_000; n++) {
            int length = random.nextInt(40); // odd and even lengths, including 0
            StringBuilder sb = new StringBuilder();
            while (sb.length() < length) {
                int kind = random.nextInt(ranges.length + 1);
                if (kind == ranges.length) {
                    sb.appendCodePoint(0x10000 + random.nextInt(0x100000)); // emoji and other astral: a surrogate pair
                } else {
                    sb.append((char) (ranges[kind][0] + random.nextInt(ranges[kind][1] - ranges[kind][0])));
                }
            }
            String s = sb.toString();
            assertThat(Murmur3.hash(s)).as("hash of %s", s).isEqualTo(referenceHash(s));
        }
    }

    @Test
    void byteHashHonoursOffsetAndLength() {
        Random random = new Random(7);
        byte[] bytes = new byte[64];
        random.nextBytes(bytes);
        for (int offset = 0; offset < 8; offset++) {
            for (int len = 0; len <= 40; len++) {
                byte[] slice = Arrays.copyOfRange(bytes, offset, offset + len);
                assertThat(Murmur3.hash(bytes, offset, len)).isEqualTo(Murmur3.hash(slice, 0, slice.length));
            }
        }
        assertThatThrownBy(() -> Murmur3.hash(bytes, 60, 5)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void hashingAStringAllocatesNothing() {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        assumeTrue(bean instanceof com.sun.management.ThreadMXBean, "needs per-thread allocation counters");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        String[] ids = {"a", "order-1234567", "\uD83D\uDE00 emoji id", "an id of some length that spans many blocks"};
        int sink = 0;
        for (int i = 0; i < 200_000; i++) { // warm up so the measured loop runs compiled code
            sink += Murmur3.hash(ids[i & 3]);
        }
        long tid = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(tid);
        for (int i = 0; i < 100_000; i++) {
            sink += Murmur3.hash(ids[i & 3]);
        }
        long allocated = threads.getThreadAllocatedBytes(tid) - before;
        assertThat(sink).isNotEqualTo(42); // keep the loop alive
        // 100k calls that allocated even 16 bytes each would show 1.6 MB; allow noise from the counter itself
        assertThat(allocated).isLessThan(64 * 1024);
    }
}
