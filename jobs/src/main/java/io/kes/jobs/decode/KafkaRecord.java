package io.kes.jobs.decode;

import io.kes.connector.RecordOrigin;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * A Kafka record as it came off the topic: coordinates, timestamp, key, value and headers, bytes
 * untouched; headers in order, repeated names and null values kept, so a dead letter can carry them
 * exactly. Decoding happens in {@link RecordDecoder}, an operator of its own, so a record that
 * cannot be decoded can go to the dead-letter topic instead of failing the source.
 */
@TypeInfo(KafkaRecordTypeInfoFactory.class)
public record KafkaRecord(
        String topic,
        int partition,
        long offset,
        long timestamp,
        byte[] key,
        byte[] value,
        List<RecordOrigin.Header> headers) {

    /** The value of the last header with this name (Kafka's {@code lastHeader}), or null. */
    public byte[] lastHeader(String name) {
        for (int i = headers.size() - 1; i >= 0; i--) {
            if (headers.get(i).key().equals(name)) {
                return headers.get(i).value();
            }
        }
        return null;
    }

    public String coordinates() {
        return topic + "/" + partition + "@" + offset;
    }
}
