package io.kes.connector;

import java.util.Arrays;
import java.util.Objects;

/**
 * Where a document came from: the Kafka record's coordinates and, for the dead-letter topic, its
 * original key and value bytes ({@code originalValue} is null when the document's source is the
 * value itself, so unchanged records are not carried twice).
 */
public record RecordOrigin(String topic, int partition, long offset, byte[] originalKey, byte[] originalValue) {

    /** No origin known (records not from Kafka, e.g. tests). */
    public static final RecordOrigin NONE = new RecordOrigin(null, -1, -1L, null, null);

    public static RecordOrigin kafka(String topic, int partition, long offset) {
        return new RecordOrigin(topic, partition, offset, null, null);
    }

    public boolean isKnown() {
        return topic != null;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RecordOrigin r && partition == r.partition && offset == r.offset
                && Objects.equals(topic, r.topic) && Arrays.equals(originalKey, r.originalKey)
                && Arrays.equals(originalValue, r.originalValue);
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, partition, offset);
    }

    @Override
    public String toString() {
        return isKnown() ? topic + "/" + partition + "@" + offset : "(no Kafka origin)";
    }
}
