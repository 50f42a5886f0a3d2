package io.kes.torture;

import io.kes.stack.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What Kafka holds, read back after a schedule: the truth the check compares Elasticsearch with
 * (not what the producer meant to write: a producer retry after a broker restart can write a
 * record twice, and the second copy is as real as the first). Also the job group's lag.
 */
final class KafkaTopics {

    /** One record as it sits in its topic. */
    record Stored(String topic, int partition, long offset, String key, String value, Map<String, String> headers) {
        String where() {
            return topic + "/" + partition + "@" + offset;
        }
    }

    private final String bootstrap;
    /** Why the last {@link #lag} call could not say, for the report. */
    volatile String lagError;

    KafkaTopics(String bootstrap) {
        this.bootstrap = bootstrap;
    }

    /** Every record of {@code topic}, partition by partition in offset order. */
    List<Stored> readAll(String topic) {
        List<Stored> all = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            List<TopicPartition> partitions = partitions(consumer, topic);
            if (partitions.isEmpty()) {
                return all;
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "could not read " + topic + " to its end " + end + " within 2 minutes");
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    Map<String, String> headers = new LinkedHashMap<>();
                    for (Header h : r.headers()) {
                        headers.put(h.key(), h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8));
                    }
                    all.add(new Stored(r.topic(), r.partition(), r.offset(), utf8(r.key()), utf8(r.value()), headers));
                }
            }
        }
        return all;
    }

    /** Records the group has not committed yet, over {@code topics}; -1 when Kafka cannot say now. */
    long lag(String group, Collection<String> topics) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer();
                Admin admin = admin()) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (String topic : topics) {
                partitions.addAll(partitions(consumer, topic));
            }
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(10));
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(10, TimeUnit.SECONDS);
            long lag = 0;
            for (TopicPartition tp : partitions) {
                OffsetAndMetadata c = committed.get(tp);
                lag += end.get(tp) - (c == null ? 0 : c.offset());
            }
            return lag;
        } catch (Exception kafkaNotAnswering) {
            lagError = kafkaNotAnswering.toString();
            return -1;
        }
    }

    /** The group's committed offsets summed over every partition it committed: records made durable so far; -1 when Kafka cannot say now. */
    long committed(String group) {
        try (Admin admin = admin()) {
            return admin
                    .listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(10, TimeUnit.SECONDS)
                    .values()
                    .stream()
                    .filter(java.util.Objects::nonNull)
                    .mapToLong(OffsetAndMetadata::offset)
                    .sum();
        } catch (Exception kafkaNotAnswering) {
            return -1;
        }
    }

    private static List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> consumer, String topic) {
        Map<String, List<PartitionInfo>> topics = consumer.listTopics(Duration.ofSeconds(10));
        List<TopicPartition> partitions = new ArrayList<>();
        for (PartitionInfo p : topics.getOrDefault(topic, List.of())) {
            partitions.add(new TopicPartition(topic, p.partition()));
        }
        return partitions;
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private Admin admin() {
        return KafkaBroker.adminAt(bootstrap);
    }

    private static String utf8(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }
}
