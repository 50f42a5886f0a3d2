package io.kes.bench;

import io.kes.jobs.quickstart.SampleLogs;
import io.kes.stack.KafkaBroker;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The fixed-load scenario's producer: the quick start's JSON logs into a fresh topic, record
 * {@code i} to partition {@code i % partitions} (so the end offsets are known before the first
 * record: the official sink's job stops at them), first a prelude sent at once (the job's warm-up:
 * the clock starts once it is indexed), then {@code rate} records a second, each stamped with its
 * send time (the Kafka record timestamp) and its acknowledgement time kept for the lag.
 */
final class PacedProducer implements AutoCloseable {

    private final String bootstrap;
    private final String topic;
    private final int partitions;
    private final SampleLogs logs = new SampleLogs(Bench.SEED);
    private final KafkaProducer<byte[], byte[]> producer;
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private long next;

    PacedProducer(String bootstrap, String topic, int partitions) throws Exception {
        this.bootstrap = bootstrap;
        this.topic = topic;
        this.partitions = partitions;
        KafkaBroker.createTopicAt(bootstrap, topic, partitions, Map.of("compression.type", "producer"));
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        // a few ms at most: the lag measures the sink, not batching in the producer
        props.put(ProducerConfig.LINGER_MS_CONFIG, "2");
        // One batch in flight per connection: on a topic created a moment ago the first batch can meet
        // NOT_LEADER_OR_FOLLOWER, and with 5 in flight the idempotent producer then retried the batches
        // behind it with OUT_OF_ORDER_SEQUENCE_NUMBER until it gave up (a smoke run lost its run so). A
        // few thousand records a second need no more than one.
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
        producer.partitionsFor(topic); // the topic's metadata before the first record, not with it
    }

    String bootstrap() {
        return bootstrap;
    }

    String topic() {
        return topic;
    }

    /** Per partition, the offset after the last record once {@code total} records are produced. */
    static long[] endOffsets(long total, int partitions) {
        long[] ends = new long[partitions];
        for (int p = 0; p < partitions; p++) {
            ends[p] = (total - p + partitions - 1) / partitions;
        }
        return ends;
    }

    /** Sends {@code count} records at once and waits for their acknowledgement. */
    void prelude(long count) {
        for (long i = 0; i < count; i++) {
            send(System.currentTimeMillis(), null);
        }
        producer.flush();
        check();
    }

    /**
     * Sends {@code rate} records a second for {@code seconds} seconds, from {@code startNanos}
     * ({@link System#nanoTime()}); returns each paced record's acknowledgement time.
     */
    long[] paced(int rate, int seconds, long startNanos) {
        int total = rate * seconds;
        long[] acked = new long[total];
        for (int i = 0; i < total && failure.get() == null; i++) {
            long due = startNanos + (long) (i * 1e9 / rate);
            long wait = due - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            int paced = i;
            send(System.currentTimeMillis(), () -> acked[paced] = System.nanoTime());
        }
        producer.flush();
        check();
        return acked;
    }

    private void send(long timestamp, Runnable onAck) {
        long i = next++;
        int partition = (int) (i % partitions);
        producer.send(new ProducerRecord<>(topic, partition, timestamp, null, logs.record(i)), (md, e) -> {
            if (e != null) {
                failure.compareAndSet(null, e);
            } else if (onAck != null) {
                onAck.run();
            }
        });
    }

    private void check() {
        if (failure.get() != null) {
            throw new IllegalStateException("producing to " + topic + " failed", failure.get());
        }
    }

    @Override
    public void close() {
        producer.close();
    }
}
