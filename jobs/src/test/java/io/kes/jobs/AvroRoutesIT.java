package io.kes.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.jobs.decode.avro.AvroTestData;
import io.kes.jobs.decode.avro.TestSchemaRegistry;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.KafkaBroker;
import io.kes.stack.junit.ElasticsearchExtension;
import io.kes.stack.junit.KafkaExtension;
import io.kes.stack.tls.CertificateAuthority;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Avro topics, with a schema file and in the Confluent wire format, end to end against real Kafka and Elasticsearch. */
@ExtendWith({ElasticsearchExtension.class, KafkaExtension.class})
class AvroRoutesIT {

    private static final long TS = Instant.parse("2026-11-21T10:00:00Z").toEpochMilli();

    @Test
    void avroWithASchemaFile(ElasticsearchNode es, KafkaBroker kafka) throws Exception {
        Path schema = Path.of("src/test/resources/avro/order.avsc").toAbsolutePath();
        List<Map.Entry<String, byte[]>> records = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            records.add(Map.entry(
                    "o-" + i,
                    AvroTestData.order(
                            "o-" + i, i + 0.25, i % 2 == 0 ? "NEW" : "PAID", i % 3 == 0 ? null : "n" + i, TS + i)));
        }
        byte[] good = AvroTestData.order("o-x", 1, "NEW", null, TS);
        records.add(Map.entry("bad-trailing", Arrays.copyOf(good, good.length + 4)));
        records.add(Map.entry("bad-json", "{\"id\":\"o-y\"}".getBytes(StandardCharsets.UTF_8)));
        produce(kafka, "it-avro", records);
        kafka.createTopic("it-avro-dead", 1, Map.of());

        run(
                es,
                kafka,
                "  - topics: [it-avro]\n    index: it-avro\n    id: {field: id}\n    timestamp_field: ts\n"
                        + "    format: avro\n    avro_schema_file: " + schema + "\n"
                        + "errors:\n  tolerance: all\n  dead_letter_topic: it-avro-dead");

        assertThat(es.http().refreshAndCount("it-avro")).isEqualTo(50);
        assertThat(TestTopics.source(es, "it-avro", "o-3"))
                .isEqualTo(
                        "{\"id\":\"o-3\",\"amount\":3.25,\"status\":\"PAID\",\"note\":null,\"ts\":\"2026-11-21T10:00:00.003Z\"}");
        assertThat(TestTopics.source(es, "it-avro", "o-4")).contains("\"note\":\"n4\"");

        Map<String, TestTopics.DeadLetter> dead = TestTopics.deadLetters(kafka, "it-avro-dead", 2);
        assertThat(dead.keySet()).containsExactlyInAnyOrder("bad-trailing", "bad-json");
        assertThat(dead.get("bad-trailing").headers())
                .containsEntry("kes.stage", "decode")
                .containsEntry("kes.error.type", "avro_mismatch")
                .containsEntry("kes.source.topic", "it-avro")
                .containsEntry("kes.source.offset", "50");
        assertThat(dead.get("bad-trailing").value())
                .as("the original Avro bytes")
                .isEqualTo(Arrays.copyOf(good, good.length + 4));
        assertThat(dead.get("bad-json").headers()).containsEntry("kes.error.type", "avro_mismatch");
    }

    @Test
    void confluentWireFormatWithASchemaRegistry(ElasticsearchNode es, KafkaBroker kafka) throws Exception {
        try (TestSchemaRegistry registry = new TestSchemaRegistry().register(21, AvroTestData.ORDER_SCHEMA)) {
            List<Map.Entry<String, byte[]>> records = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                records.add(Map.entry(
                        "c-" + i, AvroTestData.confluent(21, AvroTestData.order("c-" + i, i, "SHIPPED", "x", TS))));
            }
            byte[] good = AvroTestData.confluent(21, AvroTestData.order("c-x", 1, "NEW", null, TS));
            records.add(Map.entry("bad-mismatch", Arrays.copyOf(good, good.length - 3)));
            records.add(Map.entry("bad-magic", AvroTestData.order("c-y", 1, "NEW", null, TS)));
            records.add(
                    Map.entry("bad-id", AvroTestData.confluent(404, AvroTestData.order("c-z", 1, "NEW", null, TS))));
            produce(kafka, "it-confluent", records);
            kafka.createTopic("it-confluent-dead", 1, Map.of());

            run(
                    es,
                    kafka,
                    "  - topics: [it-confluent]\n    index: it-confluent\n    id: key\n"
                            + "    format: confluent-avro\n    schema_registry_url: \"" + registry.url() + "\"\n"
                            + "errors:\n  tolerance: all\n  dead_letter_topic: it-confluent-dead");

            assertThat(es.http().refreshAndCount("it-confluent")).isEqualTo(30);
            assertThat(TestTopics.source(es, "it-confluent", "c-7"))
                    .isEqualTo(
                            "{\"id\":\"c-7\",\"amount\":7.0,\"status\":\"SHIPPED\",\"note\":\"x\",\"ts\":\"2026-11-21T10:00:00Z\"}");
            Map<String, TestTopics.DeadLetter> dead = TestTopics.deadLetters(kafka, "it-confluent-dead", 3);
            assertThat(dead.keySet()).containsExactlyInAnyOrder("bad-mismatch", "bad-magic", "bad-id");
            assertThat(dead.get("bad-mismatch").headers())
                    .containsEntry("kes.stage", "decode")
                    .containsEntry("kes.error.type", "avro_mismatch");
            assertThat(dead.get("bad-magic").headers()).containsEntry("kes.error.type", "not_confluent_wire_format");
            assertThat(dead.get("bad-id").headers()).containsEntry("kes.error.type", "unknown_schema_id");
        }
    }

    /**
     * Debezium's change events and keys in Avro, from a registry that takes only TLS (its own CA) and
     * basic auth: upserts by the key's field, deletes, and the malformed records in the dead-letter
     * topic with their reason.
     */
    @Test
    void debeziumAvroWithAvroKeysFromAnAuthenticatedHttpsRegistry(
            ElasticsearchNode es, KafkaBroker kafka, @TempDir Path dir) throws Exception {
        Schema row = new Schema.Parser()
                .parse("{\"type\":\"record\",\"name\":\"Value\",\"namespace\":\"inv.customers\",\"fields\":["
                        + "{\"name\":\"id\",\"type\":\"int\"},{\"name\":\"email\",\"type\":\"string\"}]}");
        Schema envelope = Schema.createRecord(
                "Envelope",
                null,
                "inv.customers",
                false,
                List.of(
                        new Schema.Field("before", Schema.createUnion(Schema.create(Schema.Type.NULL), row)),
                        new Schema.Field("after", Schema.createUnion(Schema.create(Schema.Type.NULL), row)),
                        new Schema.Field("op", Schema.create(Schema.Type.STRING))));
        Schema keySchema = new Schema.Parser()
                .parse("{\"type\":\"record\",\"name\":\"Key\",\"namespace\":\"inv.customers\",\"fields\":["
                        + "{\"name\":\"id\",\"type\":\"int\"}]}");
        CertificateAuthority ca = CertificateAuthority.create(dir, "CN=kes IT registry CA", "changeit", 30);
        Path keyStore = ca.issueKeystore("registry", "CN=localhost", "san=ip:127.0.0.1,dns:localhost");
        String basic = "Basic " + Base64.getEncoder().encodeToString("sr:pw".getBytes(StandardCharsets.UTF_8));
        try (TestSchemaRegistry registry = TestSchemaRegistry.https(keyStore, ca.password())
                .requireAuthorization(basic)
                .register(31, keySchema.toString())
                .register(32, envelope.toString())) {
            java.util.function.IntFunction<byte[]> key = id -> {
                GenericData.Record k = new GenericData.Record(keySchema);
                k.put("id", id);
                return AvroTestData.confluent(31, AvroTestData.write(keySchema, k));
            };
            java.util.function.BiFunction<String, Object[], byte[]> event = (op, images) -> {
                GenericData.Record e = new GenericData.Record(envelope);
                e.put("before", images[0] == null ? null : customer(row, (Integer) images[0], (String) images[1]));
                e.put("after", images[2] == null ? null : customer(row, (Integer) images[2], (String) images[3]));
                e.put("op", op);
                return AvroTestData.confluent(32, AvroTestData.write(envelope, e));
            };
            List<TestTopics.KeyValue> records = List.of(
                    new TestTopics.KeyValue(key.apply(1), event.apply("r", new Object[] {null, null, 1, "one@x"})),
                    new TestTopics.KeyValue(key.apply(2), event.apply("c", new Object[] {null, null, 2, "two@x"})),
                    new TestTopics.KeyValue(key.apply(1), event.apply("u", new Object[] {1, "one@x", 1, "uno@x"})),
                    new TestTopics.KeyValue(key.apply(2), event.apply("d", new Object[] {2, "two@x", null, null})),
                    new TestTopics.KeyValue(key.apply(2), null),
                    new TestTopics.KeyValue(key.apply(3), event.apply("x", new Object[] {null, null, 3, "x@x"})),
                    new TestTopics.KeyValue(
                            TestTopics.utf8("plain-text-key"),
                            event.apply("c", new Object[] {null, null, 4, "four@x"})));
            TestTopics.produce(kafka, "it-debezium-avro", Map.of(), records);
            kafka.createTopic("it-debezium-avro-dead", 1, Map.of());

            run(
                    es,
                    kafka,
                    "  - topics: [it-debezium-avro]\n    index: it-debezium-avro\n    cdc: debezium\n"
                            + "    format: confluent-avro\n    key_format: confluent-avro\n"
                            + "    schema_registry_url: \"http://127.0.0.1:1," + registry.url() + "\"\n"
                            + "    id: {key_field: id}\n"
                            + "schema_registry:\n  username: sr\n  password: pw\n  tls_ca_file: \""
                            + ca.certificatePem()
                            + "\"\n"
                            + "errors:\n  tolerance: all\n  dead_letter_topic: it-debezium-avro-dead");

            es.http().refreshAndCount("it-debezium-avro");
            assertThat(TestTopics.source(es, "it-debezium-avro", "1")).isEqualTo("{\"id\":1,\"email\":\"uno@x\"}");
            assertThat(es.http().get("/it-debezium-avro/_doc/2").status())
                    .as("deleted")
                    .isEqualTo(404);
            assertThat(es.http().refreshAndCount("it-debezium-avro")).isEqualTo(1);
            Map<String, TestTopics.DeadLetter> dead = TestTopics.deadLetters(kafka, "it-debezium-avro-dead", 2);
            assertThat(dead.values())
                    .extracting(d -> d.headers().get("kes.error.type"))
                    .containsExactlyInAnyOrder("unknown_cdc_op", "not_confluent_wire_format");
            assertThat(dead.get("plain-text-key").headers().get("kes.error.reason"))
                    .startsWith("key is not in the Confluent wire format");
        }
    }

    private static GenericData.Record customer(Schema row, int id, String email) {
        GenericData.Record r = new GenericData.Record(row);
        r.put("id", id);
        r.put("email", email);
        return r;
    }

    private static void produce(KafkaBroker kafka, String topic, List<Map.Entry<String, byte[]>> records)
            throws Exception {
        TestTopics.produce(
                kafka,
                topic,
                Map.of(),
                records.stream()
                        .map(r -> new TestTopics.KeyValue(TestTopics.utf8(r.getKey()), r.getValue()))
                        .toList());
    }

    private static void run(ElasticsearchNode es, KafkaBroker kafka, String routesAndMore) throws Exception {
        TestTopics.runBounded(es, kafka, routesAndMore);
    }
}
