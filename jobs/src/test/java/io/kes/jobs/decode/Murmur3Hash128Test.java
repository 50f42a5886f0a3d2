package io.kes.jobs.decode;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class Murmur3Hash128Test {

    private static long[] halves(String s) {
        ByteBuffer b = ByteBuffer.wrap(Murmur3Hash128.hash(s.getBytes(StandardCharsets.UTF_8)))
                .order(ByteOrder.LITTLE_ENDIAN);
        return new long[] {b.getLong(), b.getLong()};
    }

    /** Vectors of Guava's Murmur3_128HashFunctionTest (seed 0), the reference implementation's values. */
    @Test
    void matchesTheReferenceVectors() {
        assertThat(halves("hell")).containsExactly(0x629942693e10f867L, 0x92db0b82baeb5347L);
        assertThat(halves("The quick brown fox jumps over the lazy dog"))
                .containsExactly(0xe34bbc7bbc071b6cL, 0x7a433ca9c49a9347L);
    }

    @Test
    void emptyInputHashesToZero() {
        assertThat(halves("")).containsExactly(0L, 0L);
    }
}
