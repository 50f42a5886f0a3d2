package io.kes.connector;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Where a document came from: the Kafka record's coordinates and, for the dead-letter topic, what
 * it takes to replay the record as it was: its key, its headers (in order, repeated names and null
 * values kept) and its value. {@code originalValue} is null when the document's source is the
 * value itself, so an unchanged value is not carried twice; the value of a dead letter is then the
 * operation's source.
 */
@PublicEvolving
public record RecordOrigin(
        String topic, int partition, long offset, byte[] originalKey, byte[] originalValue, List<Header> headers) {

    /** No origin known (records not from Kafka, e.g. tests). */
    public static final RecordOrigin NONE = new RecordOrigin(null, -1, -1L, null, null);

    /** A Kafka record header; the value may be null, as Kafka allows. */
    public record Header(String key, byte[] value) {
        public Header {
            Objects.requireNonNull(key, "a header needs a name");
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Header h && key.equals(h.key) && Arrays.equals(value, h.value);
        }

        @Override
        public int hashCode() {
            return 31 * key.hashCode() + Arrays.hashCode(value);
        }

        @Override
        public String toString() {
            return key + "(" + (value == null ? "null" : value.length + " bytes") + ")";
        }
    }

    /** {@code headers} null means none. */
    public RecordOrigin {
        headers = headers == null ? List.of() : headers;
    }

    /** A record without headers. */
    public RecordOrigin(String topic, int partition, long offset, byte[] originalKey, byte[] originalValue) {
        this(topic, partition, offset, originalKey, originalValue, List.of());
    }

    /** Coordinates only: no key, value or headers to replay. */
    public static RecordOrigin kafka(String topic, int partition, long offset) {
        return new RecordOrigin(topic, partition, offset, null, null);
    }

    public boolean isKnown() {
        return topic != null;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RecordOrigin r
                && partition == r.partition
                && offset == r.offset
                && Objects.equals(topic, r.topic)
                && Arrays.equals(originalKey, r.originalKey)
                && Arrays.equals(originalValue, r.originalValue)
                && headers.equals(r.headers);
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
