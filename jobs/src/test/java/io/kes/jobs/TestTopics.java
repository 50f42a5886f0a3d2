package io.kes.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.jobs.config.KesConfig;
import io.kes.jobs.quickstart.SampleLogs;
import io.kes.stack.KafkaBroker;
import io.kes.stack.SearchNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Test support for the job's integration tests: topics in, the bounded job, dead letters out. */
final class TestTopics {

    private static final ObjectMapper JSON = new ObjectMapper();

    private TestTopics() {}

    /** A record to produce: key and value bytes, either may be null. */
    record KeyValue(byte[] key, byte[] value) {
        static KeyValue of(String key, String value) {
            return new KeyValue(utf8(key), utf8(value));
        }
    }

    /** A dead letter: the original value and the headers kes put on it. */
    record DeadLetter(byte[] value, Map<String, String> headers) {}

    static byte[] utf8(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Creates the topic and writes the records, in order, to partition 0. Idempotence (Kafka 4's
     * default) has raced topic creation into OutOfOrderSequenceException on a loaded machine; test
     * data needs no producer-side dedup, so it is off (acks=all, one request in flight).
     */
    static void produce(KafkaBroker kafka, String topic, Map<String, String> topicConfig, List<KeyValue> records)
            throws Exception {
        kafka.createTopic(topic, 2, topicConfig);
        try (var producer = producer(kafka, topicConfig.getOrDefault("compression.type", "none"))) {
            for (KeyValue r : records) {
                producer.send(new ProducerRecord<>(topic, 0, r.key(), r.value()))
                        .get();
            }
        }
    }

    /** Creates the topic and writes these records, headers included, in order; the records name their partition. */
    static void produceRecords(KafkaBroker kafka, String topic, List<ProducerRecord<byte[], byte[]>> records)
            throws Exception {
        produceRecords(kafka, topic, 1, records);
    }

    /** Creates the topic with {@code partitions} partitions and writes these records in order to the partitions they name. */
    static void produceRecords(
            KafkaBroker kafka, String topic, int partitions, List<ProducerRecord<byte[], byte[]>> records)
            throws Exception {
        kafka.createTopic(topic, partitions, Map.of());
        try (var producer = producer(kafka, "none")) {
            for (ProducerRecord<byte[], byte[]> r : records) {
                producer.send(r).get();
            }
        }
    }

    /**
     * Like {@link #produce}, compressed by the producer with {@code codec} (none, gzip, snappy, lz4,
     * zstd); the topic keeps the producer's batches as they are (its default compression.type: producer).
     */
    static void produceCompressed(KafkaBroker kafka, String topic, String codec, List<KeyValue> records)
            throws Exception {
        kafka.createTopic(topic, 2, Map.of("compression.type", "producer"));
        try (var producer = producer(kafka, codec)) {
            for (KeyValue r : records) {
                producer.send(new ProducerRecord<>(topic, 0, r.key(), r.value()))
                        .get();
            }
        }
    }

    /** The records of a topic as they are, waiting up to 20 s for {@code expected} of them. */
    static List<ConsumerRecord<byte[], byte[]>> consume(KafkaBroker kafka, String topic, int expected) {
        Properties props = new Properties();
        props.put("bootstrap.servers", kafka.bootstrapServers());
        props.put("group.id", topic + "-raw-reader");
        props.put("auto.offset.reset", "earliest");
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (var consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (System.nanoTime() < deadline && records.size() < expected) {
                consumer.poll(Duration.ofMillis(500)).forEach(records::add);
            }
        }
        return records;
    }

    /** {@code count} deterministic sample logs over all partitions of an existing topic. */
    static void produceSampleLogs(KafkaBroker kafka, String topic, int count) {
        SampleLogs logs = new SampleLogs(7);
        AtomicReference<Exception> failure = new AtomicReference<>();
        try (var producer = producer(kafka, "none")) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, logs.record(i)), (m, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    }
                });
            }
            producer.flush();
        }
        assertThat(failure.get()).as("produce failure").isNull();
    }

    private static KafkaProducer<byte[], byte[]> producer(KafkaBroker kafka, String compression) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "10");
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** Runs the job from the first offset to the latest, parallelism 1, with {@code routesAndMore} after {@code routes:}. */
    static void runBounded(SearchNode es, KafkaBroker kafka, String routesAndMore) throws Exception {
        KesConfig config = KesConfig.parse(
                "elasticsearch: {hosts: [" + es.url() + "]}\n"
                        + "kafka: {bootstrap_servers: \"" + kafka.bootstrapServers()
                        + "\", starting_offsets: earliest}\n"
                        + "job: {parallelism: 1, checkpoint_interval: 1s, bounded: true}\n"
                        + "routes:\n" + routesAndMore,
                Map.of());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1);
        KesJob.build(env, config);
        env.execute("kes-it");
    }

    /**
     * Every document of {@code index} (at most {@code size}) by id, with the whole number in its
     * {@code field}: the final state a test checks key by key. Refreshes first.
     */
    static Map<String, Long> numbersById(SearchNode es, String index, String field, int size) throws Exception {
        es.http().send("POST", "/" + index + "/_refresh", null).requireOk("refresh");
        JsonNode hits = JSON.readTree(es.http()
                        .get("/" + index + "/_search?size=" + size + "&filter_path=hits.hits._id,hits.hits._source")
                        .requireOk("search")
                        .body())
                .path("hits")
                .path("hits");
        Map<String, Long> stored = new TreeMap<>();
        hits.forEach(hit -> stored.put(
                hit.path("_id").asText(), hit.path("_source").path(field).asLong()));
        return stored;
    }

    /** The {@code _source} of a document, as compact JSON. */
    static String source(SearchNode es, String index, String id) throws Exception {
        return JSON.writeValueAsString(JSON.readTree(es.http()
                        .get("/" + index + "/_doc/" + id)
                        .requireOk("get " + id)
                        .body())
                .get("_source"));
    }

    /** Dead letters by record key, waiting up to 20 s for {@code expected} of them. */
    static Map<String, DeadLetter> deadLetters(KafkaBroker kafka, String topic, int expected) {
        Properties props = new Properties();
        props.put("bootstrap.servers", kafka.bootstrapServers());
        props.put("group.id", topic + "-reader");
        props.put("auto.offset.reset", "earliest");
        Map<String, DeadLetter> byKey = new HashMap<>();
        try (var consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (System.nanoTime() < deadline && byKey.size() < expected) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    Map<String, String> headers = new HashMap<>();
                    for (Header h : r.headers()) {
                        headers.put(h.key(), new String(h.value(), StandardCharsets.UTF_8));
                    }
                    byKey.put(new String(r.key(), StandardCharsets.UTF_8), new DeadLetter(r.value(), headers));
                }
            }
        }
        return byKey;
    }
}
