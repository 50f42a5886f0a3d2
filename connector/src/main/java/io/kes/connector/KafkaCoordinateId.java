package io.kes.connector;

import java.util.Base64;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Document ids made from a Kafka record's coordinates, so a replay of the same offsets overwrites
 * the same documents. 12 bytes, URL-safe base64 (16 characters): a 4-byte hash of the topic, the
 * partition (2 bytes) and the offset (6 bytes), big-endian. Ids of one partition share a prefix
 * and grow with the offset, which keeps Elasticsearch's id lookups (the version check on every
 * index operation) in a few Lucene terms blocks instead of all over the terms dictionary.
 * Partitions above 65535 or offsets above 2^48 get a longer 16-byte form (22 characters), so the
 * two forms never collide.
 */
@PublicEvolving
public final class KafkaCoordinateId {

    private static final Base64.Encoder BASE64 = Base64.getUrlEncoder().withoutPadding();

    private KafkaCoordinateId() {}

    public static String of(String topic, int partition, long offset) {
        int topicHash = topic.hashCode(); // String.hashCode is specified, the same on every JVM
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
