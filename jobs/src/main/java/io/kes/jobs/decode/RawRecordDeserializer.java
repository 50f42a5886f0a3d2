package io.kes.jobs.decode;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/** Hands Kafka records on as they are; decoding, and its failures, belong to {@link RecordDecoder}. */
public final class RawRecordDeserializer implements KafkaRecordDeserializationSchema<KafkaRecord> {

    private static final long serialVersionUID = 1L;

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<KafkaRecord> out) {
        Map<String, byte[]> headers = Map.of();
        if (record.headers().iterator().hasNext()) {
            headers = new LinkedHashMap<>();
            for (Header h : record.headers()) {
                headers.put(h.key(), h.value());
            }
        }
        out.collect(new KafkaRecord(record.topic(), record.partition(), record.offset(), record.timestamp(),
                record.key(), record.value(), headers));
    }

    @Override
    public TypeInformation<KafkaRecord> getProducedType() {
        return TypeInformation.of(KafkaRecord.class);
    }
}
