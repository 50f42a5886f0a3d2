package io.kes.bench;

import io.kes.jobs.quickstart.SampleLogs;
import io.kes.stack.KafkaBroker;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The topic every kes run reads: the quick start's deterministic JSON logs, loaded once (record
 * {@code i} to partition {@code i % P}, zstd batches), and the slice of it that each timed run
 * indexes: the last {@code --docs-per-run} records, the same number from each partition.
 */
final class BenchTopic {

    private final BenchOptions options;
    private final String bootstrap;
    private final long[] sliceFrom;

    BenchTopic(BenchOptions options, String bootstrap) {
        this.options = options;
        this.bootstrap = bootstrap;
        this.sliceFrom = new long[options.partitions];
        long perPartition = options.docsPerRun / options.partitions;
        for (int p = 0; p < options.partitions; p++) {
            sliceFrom[p] = options.docsPerRun >= options.records ? 0 : Math.max(0, endOffset(p) - perPartition);
        }
    }

    String bootstrap() {
        return bootstrap;
    }

    String name() {
        return options.topic();
    }

    /** Per partition, the first offset of the slice. */
    long[] sliceFrom() {
        return sliceFrom.clone();
    }

    /** Records in the slice. */
    long sliceDocs() {
        long docs = 0;
        for (int p = 0; p < options.partitions; p++) {
            docs += endOffset(p) - sliceFrom[p];
        }
        return docs;
    }

    String describeSlice() {
        return String.format(
                "the last %,d records of the topic (offsets %s onwards per partition)",
                sliceDocs(), Arrays.toString(sliceFrom));
    }

    /** Records of partition p: record i goes to partition i % P. */
    private long endOffset(int p) {
        return (options.records - p + options.partitions - 1) / options.partitions;
    }

    /** Produces the records unless the topic already holds exactly them. */
    void loadOnce() throws Exception {
        String topic = name();
        KafkaBroker.createTopicAt(bootstrap, topic, options.partitions, Map.of("compression.type", "producer"));
        long existing = records();
        if (existing == options.records) {
            System.out.printf("  the topic already holds %,d records%n", existing);
            return;
        }
        if (existing > 0) {
            throw new IllegalStateException("topic " + topic + " holds " + existing + " records, not " + options.records
                    + ": delete it or use other --records");
        }
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
        SampleLogs logs = new SampleLogs(Bench.SEED);
        long t0 = System.nanoTime();
        AtomicReference<Exception> failure = new AtomicReference<>();
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (long i = 0; i < options.records && failure.get() == null; i++) {
                producer.send(
                        new ProducerRecord<>(topic, (int) (i % options.partitions), null, logs.record(i)), (md, e) -> {
                            if (e != null) {
                                failure.compareAndSet(null, e);
                            }
                        });
            }
            producer.flush();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("producing to " + topic + " failed", failure.get());
        }
        long total = records();
        System.out.printf("  produced %,d records in %.1f s%n", total, (System.nanoTime() - t0) / 1e9);
        if (total != options.records) {
            throw new IllegalStateException(
                    "topic " + topic + " holds " + total + " records, expected " + options.records);
        }
    }

    /** A fresh consumer group whose committed offsets are the slice's start: a job with {@code starting_offsets: committed} reads from there. */
    void commitSliceStart(String group) throws Exception {
        commitStart(group, sliceFrom);
    }

    /** A fresh consumer group whose committed offsets are {@code from} (one per partition). */
    void commitStart(String group, long[] from) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (int p = 0; p < options.partitions; p++) {
            offsets.put(new TopicPartition(name(), p), new OffsetAndMetadata(from[p]));
        }
        try (Admin admin = KafkaBroker.adminAt(bootstrap)) {
            admin.alterConsumerGroupOffsets(group, offsets).all().get(60, TimeUnit.SECONDS);
        }
    }

    /** Makes Kafka create its offsets topic, which the first checkpoint's offset commit would otherwise wait for. */
    void createOffsetsTopic() {
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("group.id", "kes-bench-warmup");
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition(name(), 0);
            consumer.assign(List.of(tp));
            consumer.commitSync(Map.of(tp, new OffsetAndMetadata(0)), Duration.ofSeconds(60));
        }
    }

    /** Records from {@code from} (per partition) to the end of the topic. */
    long docsFrom(long[] from) {
        long docs = 0;
        for (int p = 0; p < options.partitions; p++) {
            docs += endOffset(p) - from[p];
        }
        return docs;
    }

    private long records() throws Exception {
        try (Admin admin = KafkaBroker.adminAt(bootstrap)) {
            Map<TopicPartition, OffsetSpec> request = new HashMap<>();
            for (int p = 0; p < options.partitions; p++) {
                request.put(new TopicPartition(name(), p), OffsetSpec.latest());
            }
            return admin.listOffsets(request).all().get(30, TimeUnit.SECONDS).values().stream()
                    .mapToLong(o -> o.offset())
                    .sum();
        }
    }
}
