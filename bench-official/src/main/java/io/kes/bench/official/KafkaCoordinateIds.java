package io.kes.bench.official;

import java.util.Base64;

/**
 * The ids kes gives documents with {@code id: kafka} (io.kes.connector.KafkaCoordinateId), written
 * out again here because this module shares no classpath with kes: a 4-byte hash of the topic, the
 * partition (2 bytes) and the offset (6 bytes), big-endian, URL-safe base64. The bench checks that
 * both give the same ids by reading documents of an official run back by kes's ids.
 */
final class KafkaCoordinateIds {

    private static final Base64.Encoder BASE64 = Base64.getUrlEncoder().withoutPadding();

    private KafkaCoordinateIds() {}

    static String of(String topic, int partition, long offset) {
        int topicHash = topic.hashCode();
        if (partition >= 0 && partition <= 0xFFFF && offset >= 0 && offset < (1L << 48)) {
            byte[] b = new byte[12];
            putInt(b, 0, topicHash);
            b[4] = (byte) (partition >>> 8);
            b[5] = (byte) partition;
            for (int i = 0; i < 6; i++) {
                b[6 + i] = (byte) (offset >>> (8 * (5 - i)));
            }
            return BASE64.encodeToString(b);
        }
        byte[] b = new byte[16];
        putInt(b, 0, topicHash);
        putInt(b, 4, partition);
        for (int i = 0; i < 8; i++) {
            b[8 + i] = (byte) (offset >>> (8 * (7 - i)));
        }
        return BASE64.encodeToString(b);
    }

    private static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }
}
