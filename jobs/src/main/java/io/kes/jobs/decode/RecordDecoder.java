package io.kes.jobs.decode;

import io.kes.connector.DocumentOperation;
import io.kes.connector.OpType;
import io.kes.connector.RecordOrigin;
import io.kes.jobs.config.KesConfig;
import io.kes.jobs.config.Route;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Turns a Kafka record into the document operation its route asks for. JSON values are passed
 * through as they are: Elasticsearch parses them once, kes never does.
 */
public final class RecordDecoder implements KafkaRecordDeserializationSchema<DocumentOperation> {

    private static final long serialVersionUID = 1L;

    private final KesConfig config;
    private transient Map<String, Route> routeByTopic;

    public RecordDecoder(KesConfig config) {
        this.config = config;
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<DocumentOperation> out) throws IOException {
        Route route = route(record.topic());
        RecordOrigin origin = RecordOrigin.kafka(record.topic(), record.partition(), record.offset());
        if (record.value() == null) {
            throw new IOException("record " + origin + " has no value (a tombstone); route '" + route.index()
                    + "' indexes documents and has nothing to write for it");
        }
        String id = route.id() == Route.IdStrategy.KAFKA
                ? KafkaCoordinateId.of(record.topic(), record.partition(), record.offset())
                : null;
        out.collect(new DocumentOperation(OpType.INDEX, route.index(), id, null, record.value(), origin));
    }

    private Route route(String topic) {
        if (routeByTopic == null) {
            routeByTopic = new HashMap<>();
        }
        return routeByTopic.computeIfAbsent(topic, config::routeFor);
    }

    @Override
    public TypeInformation<DocumentOperation> getProducedType() {
        return TypeInformation.of(DocumentOperation.class);
    }
}
