package io.kes.jobs;

import static io.kes.jobs.decode.avro.TestSchemaRegistry.reference;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.jobs.config.KesConfig;
import io.kes.jobs.decode.avro.TestSchemaRegistry;
import io.kes.jobs.decode.registry.RegistryTestRecords;
import io.kes.jobs.migrate.Migrator;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.KafkaBroker;
import io.kes.stack.junit.ElasticsearchExtension;
import io.kes.stack.junit.KafkaExtension;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Protobuf and JSON Schema topics in Confluent's wire format (ids in the value and GUIDs in
 * headers, keys of the same format, a .proto import as a schema reference) through a registry that
 * takes only basic auth, end to end against real Kafka and Elasticsearch: every document's final
 * state, and each malformed record in the dead-letter topic with its reason.
 */
@ExtendWith({ElasticsearchExtension.class, KafkaExtension.class})
class RegistryFormatsIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BASIC =
            "Basic " + Base64.getEncoder().encodeToString("sr:pw".getBytes(StandardCharsets.UTF_8));
    private static final String AUTH = "schema_registry:\n  basic_auth_user_info: \"sr:pw\"\n";

    @Test
    void protobufValuesAndKeys(ElasticsearchNode es, KafkaBroker kafka) throws Exception {
        UUID guid = UUID.fromString("3e1d6a52-7c0b-4f8e-9d21-6b5a4c3f2e10");
        try (TestSchemaRegistry registry = new TestSchemaRegistry()
                .requireAuthorization(BASIC)
                .register(41, "PROTOBUF", RegistryTestRecords.ORDER_KEY_PROTO)
                .registerVersion("money.proto", 1, "PROTOBUF", RegistryTestRecords.MONEY_PROTO)
                .register(
                        42,
                        "PROTOBUF",
                        RegistryTestRecords.ORDERS_PROTO,
                        reference("common/money.proto", "money.proto", 1))
                .registerGuid(
                        guid,
                        "PROTOBUF",
                        RegistryTestRecords.ORDERS_PROTO,
                        reference("common/money.proto", "money.proto", 1))) {
            List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
            Map<String, Long> quantities = new TreeMap<>();
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 20; i++) {
                    if (round == 1 && i % 3 != 0) {
                        continue;
                    }
                    String id = "o-" + i;
                    long quantity = i + 100L * round;
                    quantities.put(id, quantity);
                    byte[] order = RegistryTestRecords.order(id, quantity);
                    byte[] key = RegistryTestRecords.protobufKey(41, id);
                    records.add(
                            i % 4 == 1
                                    // the newer serializers: bare message, the schema's GUID and [0] in a header
                                    ? record("it-protobuf", key, order, RegistryTestRecords.guidHeader(guid))
                                    : record(
                                            "it-protobuf",
                                            key,
                                            RegistryTestRecords.confluent(42, new byte[] {0}, order),
                                            null));
                }
            }
            byte[] good = RegistryTestRecords.confluent(42, new byte[] {0}, RegistryTestRecords.order("bad", 1));
            records.add(record(
                    "it-protobuf",
                    RegistryTestRecords.protobufKey(41, "bad-magic"),
                    "{\"order_id\":\"x\"}".getBytes(StandardCharsets.UTF_8),
                    null));
            records.add(record(
                    "it-protobuf",
                    RegistryTestRecords.protobufKey(41, "bad-id"),
                    RegistryTestRecords.confluent(404, new byte[] {0}, RegistryTestRecords.order("bad", 1)),
                    null));
            records.add(record(
                    "it-protobuf",
                    RegistryTestRecords.protobufKey(41, "bad-truncated"),
                    Arrays.copyOf(good, good.length - 3),
                    null));
            TestTopics.produceRecords(kafka, "it-protobuf", records);
            kafka.createTopic("it-protobuf-dead", 1, Map.of());

            TestTopics.runBounded(
                    es,
                    kafka,
                    "  - topics: [it-protobuf]\n    index: it-protobuf\n    format: protobuf\n"
                            + "    key_format: protobuf\n    id: {key_field: order_id}\n"
                            + "    schema_registry_url: \"" + registry.url() + "\"\n"
                            + AUTH
                            + "errors:\n  tolerance: all\n  dead_letter_topic: it-protobuf-dead");

            Map<String, String> expected = new TreeMap<>();
            quantities.forEach((id, quantity) -> expected.put(id, RegistryTestRecords.orderJson(id, quantity)));
            assertThat(sources(es, "it-protobuf")).isEqualTo(expected);
            assertThat(errorTypes(kafka, "it-protobuf-dead", 3))
                    .containsExactlyInAnyOrder("not_confluent_wire_format", "unknown_schema_id", "protobuf_mismatch");
            // every schema and reference fetched once: key schema, value schema, its reference, the GUID's schema
            assertThat(registry.requests()).isEqualTo(4 + 1); // + the bad id's 404
        }
    }

    @Test
    void jsonSchemaValuesAndKeys(ElasticsearchNode es, KafkaBroker kafka) throws Exception {
        UUID guid = UUID.fromString("a0b1c2d3-e4f5-4607-8819-2a3b4c5d6e7f");
        String keySchema = "{\"type\":\"string\"}";
        String valueSchema = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},"
                + "\"visits\":{\"type\":\"integer\"}}}";
        try (TestSchemaRegistry registry = new TestSchemaRegistry()
                .requireAuthorization(BASIC)
                .register(51, "JSON", keySchema)
                .register(52, "JSON", valueSchema)
                .registerGuid(guid, "JSON", valueSchema)) {
            List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
            Map<String, String> expected = new TreeMap<>();
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 20; i++) {
                    if (round == 1 && i % 2 != 0) {
                        continue;
                    }
                    String id = "c-" + i;
                    String doc = "{\"id\":\"" + id + "\",\"visits\":" + (i + 10 * round) + "}";
                    expected.put(id, doc);
                    byte[] key = RegistryTestRecords.confluent(51, new byte[0], json("\"" + id + "\""));
                    records.add(
                            i % 5 == 2
                                    ? record(
                                            "it-json-schema",
                                            key,
                                            json(doc),
                                            RegistryTestRecords.guidHeader(guid, new byte[0]))
                                    : record(
                                            "it-json-schema",
                                            key,
                                            RegistryTestRecords.confluent(52, new byte[0], json(doc)),
                                            null));
                }
            }
            byte[] badKey = RegistryTestRecords.confluent(51, new byte[0], json("\"bad\""));
            records.add(record("it-json-schema", badKey, json("{\"id\":\"plain\"}"), null));
            records.add(record(
                    "it-json-schema",
                    badKey,
                    RegistryTestRecords.confluent(777, new byte[0], json("{\"id\":\"x\"}")),
                    null));
            records.add(record(
                    "it-json-schema",
                    badKey,
                    RegistryTestRecords.confluent(52, new byte[0], json("{\"id\":\"trunc")),
                    null));
            TestTopics.produceRecords(kafka, "it-json-schema", records);
            kafka.createTopic("it-json-schema-dead", 1, Map.of());

            TestTopics.runBounded(
                    es,
                    kafka,
                    "  - topics: [it-json-schema]\n    index: it-json-schema\n    format: json-schema\n"
                            + "    key_format: json-schema\n    id: key\n"
                            + "    schema_registry_url: \"" + registry.url() + "\"\n"
                            + AUTH
                            + "errors:\n  tolerance: all\n  dead_letter_topic: it-json-schema-dead");

            assertThat(sources(es, "it-json-schema")).isEqualTo(expected);
            assertThat(errorTypes(kafka, "it-json-schema-dead", 3))
                    .containsExactlyInAnyOrder("not_confluent_wire_format", "unknown_schema_id", "malformed_json");
        }
    }

    /**
     * A connector with a JsonSchemaConverter key and a ProtobufConverter value, both with the
     * registry's credentials, through {@code Migrator} (what {@code bin/kes migrate --from-connect}
     * runs) and then the job it wrote.
     */
    @Test
    void aConnectorWithProtobufValuesAndJsonSchemaKeysMigratesAndRuns(ElasticsearchNode es, KafkaBroker kafka)
            throws Exception {
        try (TestSchemaRegistry registry = new TestSchemaRegistry()
                .requireAuthorization(BASIC)
                .register(61, "JSON", "{\"type\":\"string\"}")
                .registerVersion("money.proto", 1, "PROTOBUF", RegistryTestRecords.MONEY_PROTO)
                .register(
                        62,
                        "PROTOBUF",
                        RegistryTestRecords.ORDERS_PROTO,
                        reference("common/money.proto", "money.proto", 1))) {
            List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                String id = "m-" + (i % 3);
                records.add(record(
                        "it-mig-registry",
                        RegistryTestRecords.confluent(61, new byte[0], json("\"" + id + "\"")),
                        RegistryTestRecords.confluent(62, new byte[] {0}, RegistryTestRecords.order(id, i)),
                        null));
            }
            TestTopics.produceRecords(kafka, "it-mig-registry", records);
            Map<String, String> connector = new LinkedHashMap<>();
            connector.put("name", "mig-registry");
            connector.put("connector.class", "io.confluent.connect.elasticsearch.ElasticsearchSinkConnector");
            connector.put("topics", "it-mig-registry");
            connector.put("connection.url", es.url());
            connector.put("key.ignore", "false");
            for (String side : List.of("key", "value")) {
                connector.put(
                        side + ".converter",
                        side.equals("key")
                                ? "io.confluent.connect.json.JsonSchemaConverter"
                                : "io.confluent.connect.protobuf.ProtobufConverter");
                connector.put(side + ".converter.schema.registry.url", registry.url());
                connector.put(side + ".converter.basic.auth.credentials.source", "USER_INFO");
                connector.put(side + ".converter.basic.auth.user.info", "sr:pw");
            }
            String yaml = Migrator.migrate(connector, kafka.bootstrapServers());
            assertThat(yaml).contains("format: \"protobuf\"").contains("key_format: \"json-schema\"");
            KesConfig config = KesConfig.parse(yaml + "  bounded: true\n  checkpoint_interval: 1s\n", Map.of());
            StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1);
            KesJob.build(env, config);
            env.execute("kes-it-migrated");

            assertThat(sources(es, "it-mig-registry"))
                    .isEqualTo(Map.of(
                            "m-0", RegistryTestRecords.orderJson("m-0", 3),
                            "m-1", RegistryTestRecords.orderJson("m-1", 4),
                            "m-2", RegistryTestRecords.orderJson("m-2", 5)));
        }
    }

    private static byte[] json(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static ProducerRecord<byte[], byte[]> record(String topic, byte[] key, byte[] value, byte[] header) {
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, 0, key, value);
        if (header != null) {
            r.headers().add(new RecordHeader("__value_schema_id", header));
        }
        return r;
    }

    /** Every document of the index by id, its source as compact JSON. */
    private static Map<String, String> sources(ElasticsearchNode es, String index) throws Exception {
        es.http().send("POST", "/" + index + "/_refresh", null).requireOk("refresh");
        JsonNode hits = JSON.readTree(es.http()
                        .get("/" + index + "/_search?size=1000&filter_path=hits.hits._id,hits.hits._source")
                        .requireOk("search")
                        .body())
                .path("hits")
                .path("hits");
        Map<String, String> sources = new TreeMap<>();
        for (JsonNode hit : hits) {
            sources.put(hit.path("_id").asText(), JSON.writeValueAsString(hit.path("_source")));
        }
        return sources;
    }

    private static List<String> errorTypes(KafkaBroker kafka, String topic, int expected) {
        return TestTopics.consume(kafka, topic, expected).stream()
                .map(r -> new String(r.headers().lastHeader("kes.error.type").value(), StandardCharsets.UTF_8))
                .toList();
    }
}
