package io.kes.jobs.decode;

import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * A Kafka record as it came off the topic: coordinates, timestamp, key, value and headers, bytes
 * untouched. Decoding happens in {@link RecordDecoder}, an operator of its own, so a record that
 * cannot be decoded can go to the dead-letter topic instead of failing the source.
 */
@TypeInfo(KafkaRecordTypeInfoFactory.class)
public record KafkaRecord(String topic, int partition, long offset, long timestamp, byte[] key, byte[] value,
                          Map<String, byte[]> headers) {

    public String coordinates() {
        return topic + "/" + partition + "@" + offset;
    }
}
