package io.kes.jobs.decode;

import io.kes.connector.RecordOrigin;
import java.util.List;
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
        List<RecordOrigin.Header> headers = List.of();
        Header[] kafkaHeaders = record.headers().toArray();
        if (kafkaHeaders.length > 0) {
            RecordOrigin.Header[] copied = new RecordOrigin.Header[kafkaHeaders.length];
            for (int i = 0; i < copied.length; i++) {
                copied[i] = new RecordOrigin.Header(kafkaHeaders[i].key(), kafkaHeaders[i].value());
            }
            headers = List.of(copied);
        }
        out.collect(new KafkaRecord(
                record.topic(),
                record.partition(),
                record.offset(),
                record.timestamp(),
                record.key(),
                record.value(),
                headers));
    }

    @Override
    public TypeInformation<KafkaRecord> getProducedType() {
        return TypeInformation.of(KafkaRecord.class);
    }
}
