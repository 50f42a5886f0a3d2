package io.kes.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.jobs.config.KesConfig;
import io.kes.jobs.decode.avro.AvroTestData;
import io.kes.jobs.decode.avro.TestSchemaRegistry;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.Http;
import io.kes.stack.KafkaBroker;
import io.kes.stack.junit.ElasticsearchExtension;
import io.kes.stack.junit.KafkaExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Avro topics, with a schema file and in the Confluent wire format, end to end against real Kafka and Elasticsearch. */
@ExtendWith({ElasticsearchExtension.class, KafkaExtension.class})
class AvroRoutesIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long TS = Instant.parse("2026-11-21T10:00:00Z").toEpochMilli();

    @Test
    void avroWithASchemaFile(ElasticsearchNode es, KafkaBroker kafka) throws Exception {
        Path schema = Path.of("src/test/resources/avro/order.avsc").toAbsolutePath();
        List<Map.Entry<String, byte[]>> records = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            records.add(Map.entry("o-" + i, AvroTestData.order("o-" + i, i + 0.25, i % 2 == 0 ? "NEW" : "PAID", i % 3 == 0 ? null : "n" + i, TS + i)));
        }
        byte[] good = AvroTestData.order("o-x", 1, "NEW", null, TS);
        records.add(Map.entry("bad-trailing", Arrays.copyOf(good, good.length + 4)));
        records.add(Map.entry("bad-json", "{\"id\":\"o-y\"}".getBytes(StandardCharsets.UTF_8)));
        produce(kafka, "it-avro", records);
        kafka.createTopic("it-avro-dead", 1, Map.of());

        run(es, kafka, "  - topics: [it-avro]\n    index: it-avro\n    id: {field: id}\n    timestamp_field: ts\n"
                + "    format: avro\n    avro_schema_file: " + schema + "\n"
                + "errors:\n  tolerance: all\n  dead_letter_topic: it-avro-dead");

        assertThat(es.http().refreshAndCount("it-avro")).isEqualTo(50);
        assertThat(source(es, "it-avro", "o-3"))
                .isEqualTo("{\"id\":\"o-3\",\"amount\":3.25,\"status\":\"PAID\",\"note\":null,\"ts\":\"2026-11-21T10:00:00.003Z\"}");
        assertThat(source(es, "it-avro", "o-4")).contains("\"note\":\"n4\"");

        Map<String, DeadLetter> dead = deadLetters(kafka, "it-avro-dead", 2);
        assertThat(dead.keySet()).containsExactlyInAnyOrder("bad-trailing", "bad-json");
        assertThat(dead.get("bad-trailing").headers).containsEntry("kes.stage", "decode").containsEntry("kes.error.type", "avro_mismatch")
                .containsEntry("kes.source.topic", "it-avro").containsEntry("kes.source.offset", "50");
        assertThat(dead.get("bad-trailing").value).as("the original Avro bytes").isEqualTo(Arrays.copyOf(good, good.length + 4));
        assertThat(dead.get("bad-json").headers).containsEntry("kes.error.type", "avro_mismatch");
    }

    @Test
    void confluentWireFormatWithASchemaRegistry(ElasticsearchNode es, KafkaBroker kafka) throws Exception {
        try (TestSchemaRegistry registry = new TestSchemaRegistry().register(21, AvroTestData.ORDER_SCHEMA)) {
            List<Map.Entry<String, byte[]>> records = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                records.add(Map.entry("c-" + i, AvroTestData.confluent(21, AvroTestData.order("c-" + i, i, "SHIPPED", "x", TS))));
            }
            byte[] good = AvroTestData.confluent(21, AvroTestData.order("c-x", 1, "NEW", null, TS));
            records.add(Map.entry("bad-mismatch", Arrays.copyOf(good, good.length - 3)));
            records.add(Map.entry("bad-magic", AvroTestData.order("c-y", 1, "NEW", null, TS)));
            records.add(Map.entry("bad-id", AvroTestData.confluent(404, AvroTestData.order("c-z", 1, "NEW", null, TS))));
            produce(kafka, "it-confluent", records);
            kafka.createTopic("it-confluent-dead", 1, Map.of());

            run(es, kafka, "  - topics: [it-confluent]\n    index: it-confluent\n    id: key\n"
                    + "    format: confluent-avro\n    schema_registry_url: \"" + registry.url() + "\"\n"
                    + "errors:\n  tolerance: all\n  dead_letter_topic: it-confluent-dead");

            assertThat(es.http().refreshAndCount("it-confluent")).isEqualTo(30);
            assertThat(source(es, "it-confluent", "c-7"))
                    .isEqualTo("{\"id\":\"c-7\",\"amount\":7.0,\"status\":\"SHIPPED\",\"note\":\"x\",\"ts\":\"2026-11-21T10:00:00Z\"}");
            Map<String, DeadLetter> dead = deadLetters(kafka, "it-confluent-dead", 3);
            assertThat(dead.keySet()).containsExactlyInAnyOrder("bad-mismatch", "bad-magic", "bad-id");
            assertThat(dead.get("bad-mismatch").headers).containsEntry("kes.stage", "decode").containsEntry("kes.error.type", "avro_mismatch");
            assertThat(dead.get("bad-magic").headers).containsEntry("kes.error.type", "not_confluent_wire_format");
            assertThat(dead.get("bad-id").headers).containsEntry("kes.error.type", "unknown_schema_id");
        }
    }

    private record DeadLetter(byte[] value, Map<String, String> headers) {
    }

    private static void produce(KafkaBroker kafka, String topic, List<Map.Entry<String, byte[]>> records) throws Exception {
        kafka.createTopic(topic, 2, Map.of());
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false"); // see KafkaToElasticsearchIT.produce
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        try (var producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (Map.Entry<String, byte[]> r : records) {
                producer.send(new ProducerRecord<>(topic, 0, r.getKey().getBytes(StandardCharsets.UTF_8), r.getValue())).get();
            }
        }
    }

    private static void run(ElasticsearchNode es, KafkaBroker kafka, String routesAndMore) throws Exception {
        KesConfig config = KesConfig.parse("elasticsearch: {hosts: [" + es.url() + "]}\n"
                + "kafka: {bootstrap_servers: \"" + kafka.bootstrapServers() + "\", starting_offsets: earliest}\n"
                + "job: {parallelism: 1, checkpoint_interval: 1s, bounded: true}\n"
                + "routes:\n" + routesAndMore, Map.of());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1);
        KesJob.build(env, config);
        env.execute("avro-routes-it");
    }

    private static String source(ElasticsearchNode es, String index, String id) throws Exception {
        Http.Response r = es.http().get("/" + index + "/_doc/" + id).requireOk("get " + id);
        JsonNode node = JSON.readTree(r.body());
        return JSON.writeValueAsString(node.get("_source"));
    }

    /** Dead letters by record key, with their value and headers. */
    private static Map<String, DeadLetter> deadLetters(KafkaBroker kafka, String topic, int expected) {
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
