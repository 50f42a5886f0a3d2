package io.kes.connector;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Ids must never change between versions: a job restored by a newer kes replays onto the documents an older one wrote. */
class KafkaCoordinateIdTest {

    @Test
    void idsAreTheOnesEveryEarlierVersionWrote() {
        assertThat(KafkaCoordinateId.of("orders", 2, 41)).isEqualTo("w99i5QACAAAAAAAp");
        assertThat(KafkaCoordinateId.of("kes-bench-logs-p8-s42", 7, 123456789L)).isEqualTo("yNF7-QAHAAAHW80V");
        assertThat(KafkaCoordinateId.of("t", 65535, (1L << 48) - 1)).isEqualTo("AAAAdP__________");
        assertThat(KafkaCoordinateId.of("t", 65536, 5)).isEqualTo("AAAAdAABAAAAAAAAAAAABQ");
        assertThat(KafkaCoordinateId.of("t", 0, 1L << 48)).isEqualTo("AAAAdAAAAAAAAQAAAAAAAA");
    }

    @Test
    void idsAreTheUrlSafeBase64OfTopicHashPartitionAndOffset() {
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 100_000; i++) {
            String topic = "topic-" + random.nextInt();
            int partition = random.nextBoolean() ? random.nextInt(0x10000) : random.nextInt();
            long offset = random.nextBoolean() ? random.nextLong(1L << 48) : random.nextLong();
            assertThat(KafkaCoordinateId.of(topic, partition, offset))
                    .as("%s/%d@%d", topic, partition, offset)
                    .isEqualTo(reference(topic, partition, offset));
        }
    }

    /** The format as documented: 12 bytes (hash, 2-byte partition, 6-byte offset), else 16 (hash, int, long). */
    private static String reference(String topic, int partition, long offset) {
        boolean compact = partition >= 0 && partition <= 0xFFFF && offset >= 0 && offset < (1L << 48);
        ByteBuffer b = ByteBuffer.allocate(compact ? 12 : 16).putInt(topic.hashCode());
        if (compact) {
            b.putShort((short) partition).putShort((short) (offset >>> 32)).putInt((int) offset);
        } else {
            b.putInt(partition).putLong(offset);
        }
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b.array());
    }
}
