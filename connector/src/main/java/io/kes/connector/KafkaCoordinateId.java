package io.kes.connector;

import java.nio.charset.StandardCharsets;
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
    private static final byte[] URL_SAFE =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".getBytes(StandardCharsets.US_ASCII);

    private KafkaCoordinateId() {}

    public static String of(String topic, int partition, long offset) {
        int topicHash = topic.hashCode(); // String.hashCode is specified, the same on every JVM
        if (partition >= 0 && partition <= 0xFFFF && offset >= 0 && offset < (1L << 48)) {
            // Every record's id: its 96 bits encoded as four 24-bit groups of four characters each,
            // what Base64 would make of the 12 bytes without the byte array and the JDK's loop (a
            // per-record cost that showed in the client's profile; the JIT stops at C1, no intrinsic).
            byte[] chars = new byte[16];
            putGroup(chars, 0, topicHash >>> 8);
            putGroup(chars, 4, (topicHash & 0xFF) << 16 | partition);
            putGroup(chars, 8, (int) (offset >>> 24));
            putGroup(chars, 12, (int) offset);
            return new String(chars, StandardCharsets.ISO_8859_1);
        }
        byte[] b = new byte[16];
        putInt(b, 0, topicHash);
        putInt(b, 4, partition);
        for (int i = 0; i < 8; i++) {
            b[8 + i] = (byte) (offset >>> (8 * (7 - i)));
        }
        return BASE64.encodeToString(b);
    }

    /** The low 24 bits of {@code group} as four URL-safe base64 characters. */
    private static void putGroup(byte[] chars, int at, int group) {
        chars[at] = URL_SAFE[(group >>> 18) & 63];
        chars[at + 1] = URL_SAFE[(group >>> 12) & 63];
        chars[at + 2] = URL_SAFE[(group >>> 6) & 63];
        chars[at + 3] = URL_SAFE[group & 63];
    }

    private static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }
}
