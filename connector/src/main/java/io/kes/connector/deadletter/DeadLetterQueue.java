package io.kes.connector.deadletter;

import io.kes.connector.RecordOrigin;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes failed records to the dead-letter topic as they were, so they can be replayed: the
 * original key, value and headers (in order, byte for byte), then kes's own headers saying where
 * they came from and why they failed ({@code kes.source.topic}, {@code kes.source.partition},
 * {@code kes.source.offset}, {@code kes.stage} (decode | index), {@code kes.error.type},
 * {@code kes.error.status} (Elasticsearch's, index stage), {@code kes.error.reason}, {@code kes.time}).
 * A record replayed from the dead-letter topic that fails again carries both rounds of
 * {@code kes.*} headers; the last of each name (Kafka's {@code lastHeader}) is the newest.
 * {@link #flush()} runs at every checkpoint, so a checkpoint never completes before its dead
 * letters are in Kafka.
 *
 * <p>{@code clientProperties} are the Kafka producer's settings (security: {@code security.protocol},
 * {@code sasl.*}, {@code ssl.*}); kes sets the bootstrap servers, {@code acks=all} and idempotence itself.
 */
@PublicEvolving
public final class DeadLetterQueue implements AutoCloseable {

    public static final String STAGE_DECODE = "decode";
    public static final String STAGE_INDEX = "index";

    private final String topic;
    private final KafkaProducer<byte[], byte[]> producer;
    private final AtomicReference<Exception> failure = new AtomicReference<>();

    public DeadLetterQueue(String bootstrapServers, Map<String, String> clientProperties, String topic) {
        this.topic = topic;
        Properties props = new Properties();
        props.putAll(clientProperties);
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "50");
        this.producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** Sends the record of {@code origin} (its key and headers) with this value. */
    public void send(RecordOrigin origin, byte[] value, String stage, String errorType, int status, String reason) {
        RecordHeaders headers = new RecordHeaders();
        for (RecordOrigin.Header original : origin.headers()) {
            headers.add(original.key(), original.value());
        }
        if (origin.isKnown()) { // a SQL row without Kafka metadata columns has no coordinates
            header(headers, "kes.source.topic", origin.topic());
            header(headers, "kes.source.partition", Integer.toString(origin.partition()));
            header(headers, "kes.source.offset", Long.toString(origin.offset()));
        }
        header(headers, "kes.stage", stage);
        header(headers, "kes.error.type", errorType);
        if (status > 0) {
            header(headers, "kes.error.status", Integer.toString(status));
        }
        header(headers, "kes.error.reason", reason);
        header(headers, "kes.time", Instant.now().toString());
        producer.send(new ProducerRecord<>(topic, null, origin.originalKey(), value, headers), (metadata, e) -> {
            if (e != null) {
                failure.compareAndSet(null, e);
            }
        });
    }

    private static void header(RecordHeaders headers, String name, String value) {
        if (value != null) {
            headers.add(name, value.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Waits until everything sent is acknowledged by Kafka; fails if anything was not. */
    public void flush() {
        producer.flush();
        Exception e = failure.get();
        if (e != null) {
            throw new IllegalStateException(
                    "writing to the dead-letter topic " + topic + " failed; the failed records are "
                            + "not safe anywhere, so the job stops (it replays them after a restart)",
                    e);
        }
    }

    @Override
    public void close() {
        producer.close();
    }
}
