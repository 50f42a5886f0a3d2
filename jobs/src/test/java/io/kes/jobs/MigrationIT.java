package io.kes.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.jobs.decode.avro.AvroTestData;
import io.kes.jobs.decode.avro.TestSchemaRegistry;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.KafkaBroker;
import io.kes.stack.Ports;
import io.kes.stack.junit.ElasticsearchExtension;
import io.kes.stack.junit.KafkaExtension;
import io.kes.stack.tls.CertificateAuthority;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Confluent Elasticsearch sink's documented example configurations (the quick start, a data
 * stream, key ids with tombstone deletes, upserts, a dead-letter queue), each migrated with {@code
 * bin/kes migrate} and run with {@code bin/kes run} on a real Kafka and Elasticsearch: every
 * record's document ends as the connector's configuration means it (index or data stream, Connect's
 * id, value, external version, deletes), and every refused record is in the dead-letter topic.
 */
@ExtendWith({ElasticsearchExtension.class, KafkaExtension.class})
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class MigrationIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String JSON_VALUES = "\"value.converter\": \"org.apache.kafka.connect.json.JsonConverter\","
            + " \"value.converter.schemas.enable\": \"false\"";

    /** The quick start: ids from coordinates, the index named after the topic. */
    @Test
    void quickStart(ElasticsearchNode es, KafkaBroker kafka, @TempDir Path home) throws Exception {
        List<TestTopics.KeyValue> records = List.of(
                TestTopics.KeyValue.of("a", "{\"f1\":\"value1\"}"),
                TestTopics.KeyValue.of("b", "{\"f1\":\"value2\"}"),
                TestTopics.KeyValue.of(null, "{\"f1\":\"value3\"}"));
        TestTopics.produce(kafka, "Mig-Quickstart", Map.of(), records);
        migrateAndRun(
                home,
                es,
                kafka,
                "{\"name\": \"elasticsearch-sink\", \"config\": {"
                        + "\"connector.class\": \"io.confluent.connect.elasticsearch.ElasticsearchSinkConnector\","
                        + " \"tasks.max\": \"1\", \"topics\": \"Mig-Quickstart\", \"key.ignore\": \"true\","
                        + " \"connection.url\": \"" + es.url() + "\", \"type.name\": \"kafka-connect\", " + JSON_VALUES
                        + "}}");

        assertThat(es.http().refreshAndCount("mig-quickstart")).isEqualTo(records.size());
        for (int offset = 0; offset < records.size(); offset++) {
            JsonNode doc = get(es, "mig-quickstart", "Mig-Quickstart+0+" + offset);
            assertThat(doc.get("_source").toString())
                    .isEqualTo(new String(records.get(offset).value()));
        }
    }

    /** A data stream: {@code <type>-<dataset>-<topic>}, {@code @timestamp} from the timestamp field. */
    @Test
    void dataStream(ElasticsearchNode es, KafkaBroker kafka, @TempDir Path home) throws Exception {
        int n = 4;
        List<TestTopics.KeyValue> records = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            records.add(
                    TestTopics.KeyValue.of(null, "{\"ts\":\"2026-11-20T10:00:0" + i + "Z\",\"msg\":\"m" + i + "\"}"));
        }
        TestTopics.produce(kafka, "mig-ds", Map.of(), records);
        // What Elasticsearch's built-in logs-*-* template does on a cluster (the test node runs without stack
        // templates), and what Connect relies on too: names matching it become data streams.
        es.http()
                .send(
                        "PUT",
                        "/_index_template/mig-logs",
                        "{\"index_patterns\":[\"logs-migit-*\"],\"data_stream\":{},\"priority\":500,"
                                + "\"template\":{\"settings\":{\"number_of_replicas\":0}}}")
                .requireOk("put the data stream template");
        migrateAndRun(
                home,
                es,
                kafka,
                "{\"name\": \"ds-sink\", \"connector.class\": "
                        + "\"io.confluent.connect.elasticsearch.ElasticsearchSinkConnector\", \"topics\": \"mig-ds\","
                        + " \"key.ignore\": \"true\", \"connection.url\": \"" + es.url()
                        + "\", \"data.stream.type\": \"logs\","
                        + " \"data.stream.dataset\": \"migit\", \"data.stream.timestamp.field\": \"ts\", " + JSON_VALUES
                        + "}");

        String stream = "logs-migit-mig-ds";
        assertThat(es.http()
                        .get("/_resolve/index/" + stream)
                        .requireOk("resolve")
                        .body())
                .contains("\"data_streams\":[{\"name\":\"" + stream + "\"");
        assertThat(es.http().refreshAndCount(stream)).isEqualTo(n);
        Map<String, JsonNode> byId = search(es, stream);
        assertThat(byId).hasSize(n);
        for (int i = 0; i < n; i++) {
            JsonNode source = byId.get("mig-ds+0+" + i);
            assertThat(source)
                    .as("document mig-ds+0+%d in %s", i, byId.keySet())
                    .isNotNull();
            assertThat(source.get("msg").asText()).isEqualTo("m" + i);
            assertThat(Instant.parse(source.get("@timestamp").asText()))
                    .isEqualTo(Instant.parse("2026-11-20T10:00:0" + i + "Z"));
        }
    }

    /** Key ids, versioned by offset, deleted by tombstones; a second connector upserts partial documents. */
    @Test
    void keyIdsWithTombstoneDeletesAndUpserts(ElasticsearchNode es, KafkaBroker kafka, @TempDir Path home)
            throws Exception {
        TestTopics.produce(
                kafka,
                "mig-keyed",
                Map.of(),
                List.of(
                        TestTopics.KeyValue.of("k1", "{\"v\":1}"),
                        TestTopics.KeyValue.of("k2", "{\"v\":1}"),
                        TestTopics.KeyValue.of("k1", "{\"v\":2}"),
                        TestTopics.KeyValue.of("k3", "{\"v\":1}"),
                        TestTopics.KeyValue.of("k2", null)));
        String keyed = "\"connector.class\": \"io.confluent.connect.elasticsearch.ElasticsearchSinkConnector\","
                + " \"connection.url\": \"" + es.url() + "\", \"key.ignore\": \"false\","
                + " \"key.converter\": \"org.apache.kafka.connect.storage.StringConverter\", " + JSON_VALUES;
        migrateAndRun(
                home.resolve("delete"),
                es,
                kafka,
                "{\"name\": \"keyed-sink\", \"topics\": \"mig-keyed\"," + " \"behavior.on.null.values\": \"delete\", "
                        + keyed + "}");

        assertThat(es.http().refreshAndCount("mig-keyed")).isEqualTo(2);
        assertThat(get(es, "mig-keyed", "k1").get("_source").toString()).isEqualTo("{\"v\":2}");
        assertThat(get(es, "mig-keyed", "k1").get("_version").asLong())
                .as("k1's version: its offset")
                .isEqualTo(2);
        assertThat(get(es, "mig-keyed", "k3").get("_version").asLong()).isEqualTo(3);
        assertThat(es.http().get("/mig-keyed/_doc/k2").status())
                .as("k2 deleted by its tombstone")
                .isEqualTo(404);

        // write.method=upsert with deletes: partial updates, and tombstones deleting, in their order
        TestTopics.produce(
                kafka,
                "mig-upsert-deletes",
                Map.of(),
                List.of(
                        TestTopics.KeyValue.of("d1", "{\"a\":1}"),
                        TestTopics.KeyValue.of("d1", "{\"b\":2}"),
                        TestTopics.KeyValue.of("d2", "{\"a\":1}"),
                        TestTopics.KeyValue.of("d2", null),
                        TestTopics.KeyValue.of("d3", "{\"a\":1}"),
                        TestTopics.KeyValue.of("d3", null),
                        TestTopics.KeyValue.of("d3", "{\"c\":3}")));
        migrateAndRun(
                home.resolve("upsert-deletes"),
                es,
                kafka,
                "{\"name\": \"upsert-deletes-sink\", \"topics\": \"mig-upsert-deletes\", \"write.method\": \"upsert\","
                        + " \"behavior.on.null.values\": \"delete\", " + keyed + "}");
        es.http().refreshAndCount("mig-upsert-deletes");
        assertThat(search(es, "mig-upsert-deletes"))
                .isEqualTo(Map.of("d1", JSON.readTree("{\"a\":1,\"b\":2}"), "d3", JSON.readTree("{\"c\":3}")));

        TestTopics.produce(
                kafka,
                "mig-upsert",
                Map.of(),
                List.of(
                        TestTopics.KeyValue.of("u1", "{\"a\":1}"),
                        TestTopics.KeyValue.of("u1", "{\"b\":2}"),
                        TestTopics.KeyValue.of("u2", "{\"a\":3}")));
        migrateAndRun(
                home.resolve("upsert"),
                es,
                kafka,
                "{\"name\": \"upsert-sink\", \"topics\": \"mig-upsert\"," + " \"write.method\": \"upsert\", " + keyed
                        + "}");
        assertThat(es.http().refreshAndCount("mig-upsert")).isEqualTo(2);
        assertThat(get(es, "mig-upsert", "u1").get("_source").toString()).isEqualTo("{\"a\":1,\"b\":2}");
        assertThat(get(es, "mig-upsert", "u2").get("_source").toString()).isEqualTo("{\"a\":3}");
    }

    /**
     * StringConverter values, and Avro keys and values from a registry on HTTPS with its own CA that
     * takes only the credentials Connect put in the registry's URL.
     */
    @Test
    void stringValuesAndAvroFromAnAuthenticatedHttpsRegistry(
            ElasticsearchNode es, KafkaBroker kafka, @TempDir Path home) throws Exception {
        TestTopics.produce(
                kafka,
                "mig-strings",
                Map.of(),
                List.of(TestTopics.KeyValue.of(null, "GET /a 200"), TestTopics.KeyValue.of(null, "{\"a\":1}")));
        migrateAndRun(
                home.resolve("strings"),
                es,
                kafka,
                "{\"name\": \"strings-sink\", \"topics\": \"mig-strings\", \"key.ignore\": \"true\","
                        + " \"connector.class\": \"io.confluent.connect.elasticsearch.ElasticsearchSinkConnector\","
                        + " \"connection.url\": \"" + es.url() + "\","
                        + " \"value.converter\": \"org.apache.kafka.connect.storage.StringConverter\"}");
        es.http().refreshAndCount("mig-strings");
        assertThat(search(es, "mig-strings"))
                .isEqualTo(Map.of(
                        "mig-strings+0+0", JSON.readTree("{\"message\":\"GET /a 200\"}"),
                        "mig-strings+0+1", JSON.readTree("{\"message\":\"{\\\"a\\\":1}\"}")));

        CertificateAuthority ca =
                CertificateAuthority.create(home.resolve("ca"), "CN=kes migration registry CA", "changeit", 30);
        Path keyStore = ca.issueKeystore("registry", "CN=localhost", "san=ip:127.0.0.1,dns:localhost");
        String basic = "Basic " + Base64.getEncoder().encodeToString("sr:p@ss".getBytes(StandardCharsets.UTF_8));
        try (TestSchemaRegistry registry = TestSchemaRegistry.https(keyStore, ca.password())
                .requireAuthorization(basic)
                .register(1, "\"string\"")
                .register(2, AvroTestData.ORDER_SCHEMA)) {
            byte[] k1 = AvroTestData.confluent(1, AvroTestData.write(Schema.create(Schema.Type.STRING), "o-1"));
            TestTopics.produce(
                    kafka,
                    "mig-avro",
                    Map.of(),
                    List.of(
                            new TestTopics.KeyValue(
                                    k1, AvroTestData.confluent(2, AvroTestData.order("o-1", 1, "NEW", null, 0L))),
                            new TestTopics.KeyValue(
                                    k1, AvroTestData.confluent(2, AvroTestData.order("o-1", 2, "PAID", "n", 0L)))));
            String url = registry.url().replace("://", "://sr:p%40ss@");
            String avro = "\"io.confluent.connect.avro.AvroConverter\"";
            migrateAndRun(
                    home.resolve("avro"),
                    es,
                    kafka,
                    "{\"name\": \"avro-sink\", \"topics\": \"mig-avro\", \"key.ignore\": \"false\","
                            + " \"connector.class\": \"io.confluent.connect.elasticsearch.ElasticsearchSinkConnector\","
                            + " \"connection.url\": \"" + es.url() + "\","
                            + " \"key.converter\": " + avro + ", \"key.converter.schema.registry.url\": \"" + url
                            + "\","
                            + " \"key.converter.schema.registry.ssl.truststore.location\": \"" + ca.certificatePem()
                            + "\","
                            + " \"key.converter.schema.registry.ssl.truststore.type\": \"PEM\","
                            + " \"value.converter\": " + avro + ", \"value.converter.schema.registry.url\": \"" + url
                            + "\","
                            + " \"value.converter.schema.registry.ssl.truststore.location\": \"" + ca.certificatePem()
                            + "\","
                            + " \"value.converter.schema.registry.ssl.truststore.type\": \"PEM\"}");
            assertThat(Files.readString(home.resolve("avro/mapping.yaml")))
                    .as("the password only where the job reads it, never in a URL or a comment")
                    .doesNotContain("p%40ss")
                    .containsOnlyOnce("p@ss");
        }
        es.http().refreshAndCount("mig-avro");
        assertThat(search(es, "mig-avro"))
                .isEqualTo(Map.of(
                        "o-1",
                        JSON.readTree("{\"id\":\"o-1\",\"amount\":2.0,\"status\":\"PAID\",\"note\":\"n\","
                                + "\"ts\":\"1970-01-01T00:00:00Z\"}")));
    }

    /**
     * Debezium's topic through the connector configuration Debezium's documentation gives for
     * Elasticsearch: JsonConverter with schemas, ExtractNewRecordState with deletes kept, the key's
     * {@code id} field as the document id, tombstones deleting.
     */
    @Test
    void debeziumWithTheUnwrapTransform(ElasticsearchNode es, KafkaBroker kafka, @TempDir Path home) throws Exception {
        String rowSchema = "{\"type\":\"struct\",\"optional\":true,\"fields\":[{\"field\":\"id\",\"type\":\"int32\"},"
                + "{\"field\":\"email\",\"type\":\"string\"}]}";
        String eventSchema = "{\"type\":\"struct\",\"fields\":[{\"field\":\"before\"," + rowSchema.substring(1)
                + ",{\"field\":\"after\"," + rowSchema.substring(1) + ",{\"field\":\"op\",\"type\":\"string\"}]}";
        String keySchema = "{\"type\":\"struct\",\"fields\":[{\"field\":\"id\",\"type\":\"int32\"}]}";
        java.util.function.IntFunction<String> key =
                id -> "{\"schema\":" + keySchema + ",\"payload\":{\"id\":" + id + "}}";
        java.util.function.Function<String[], String> event = e -> "{\"schema\":" + eventSchema
                + ",\"payload\":{\"before\":" + e[1] + ",\"after\":" + e[2] + ",\"op\":\"" + e[0] + "\"}}";
        String one = "{\"id\":1,\"email\":\"one@x\"}";
        String two = "{\"id\":2,\"email\":\"two@x\"}";
        TestTopics.produce(
                kafka,
                "dbserver1.inventory.customers",
                Map.of(),
                List.of(
                        TestTopics.KeyValue.of(key.apply(1), event.apply(new String[] {"r", "null", one})),
                        TestTopics.KeyValue.of(key.apply(2), event.apply(new String[] {"c", "null", two})),
                        TestTopics.KeyValue.of(
                                key.apply(1), event.apply(new String[] {"u", one, "{\"id\":1,\"email\":\"uno@x\"}"})),
                        TestTopics.KeyValue.of(key.apply(2), event.apply(new String[] {"d", two, "null"})),
                        TestTopics.KeyValue.of(key.apply(2), null)));
        migrateAndRun(
                home,
                es,
                kafka,
                "{\"name\": \"customers-sink\", \"config\": {"
                        + "\"connector.class\": \"io.confluent.connect.elasticsearch.ElasticsearchSinkConnector\","
                        + " \"topics\": \"dbserver1.inventory.customers\", \"connection.url\": \"" + es.url() + "\","
                        + " \"key.ignore\": \"false\", \"behavior.on.null.values\": \"delete\","
                        + " \"key.converter\": \"org.apache.kafka.connect.json.JsonConverter\","
                        + " \"value.converter\": \"org.apache.kafka.connect.json.JsonConverter\","
                        + " \"transforms\": \"unwrap,key\","
                        + " \"transforms.unwrap.type\": \"io.debezium.transforms.ExtractNewRecordState\","
                        + " \"transforms.unwrap.drop.tombstones\": \"false\","
                        + " \"transforms.unwrap.delete.handling.mode\": \"none\","
                        + " \"transforms.key.type\": \"org.apache.kafka.connect.transforms.ExtractField$Key\","
                        + " \"transforms.key.field\": \"id\"}}");
        es.http().refreshAndCount("dbserver1.inventory.customers");
        assertThat(search(es, "dbserver1.inventory.customers"))
                .as("row 1 at its update, row 2 deleted")
                .isEqualTo(Map.of("1", JSON.readTree("{\"id\":1,\"email\":\"uno@x\"}")));
        assertThat(get(es, "dbserver1.inventory.customers", "1").get("_version").asLong())
                .as("Connect's external version: the update's offset")
                .isEqualTo(2);
    }

    /** A dead-letter queue: what Elasticsearch refuses goes there, whole and with where it came from. */
    @Test
    void deadLetterQueue(ElasticsearchNode es, KafkaBroker kafka, @TempDir Path home) throws Exception {
        TestTopics.produce(
                kafka,
                "mig-dlq-src",
                Map.of(),
                List.of(
                        TestTopics.KeyValue.of("d0", "{\"n\":1}"),
                        TestTopics.KeyValue.of("d1", "{\"n\":\"five\"}"),
                        TestTopics.KeyValue.of("d2", "not json"),
                        TestTopics.KeyValue.of("d3", "{\"n\":3}")));
        kafka.createTopic("mig-dlq", 1, Map.of());
        migrateAndRun(
                home,
                es,
                kafka,
                "{\"name\": \"dlq-sink\", \"connector.class\": "
                        + "\"io.confluent.connect.elasticsearch.ElasticsearchSinkConnector\", \"topics\": \"mig-dlq-src\","
                        + " \"key.ignore\": \"true\", \"connection.url\": \"" + es.url() + "\","
                        + " \"errors.tolerance\": \"all\", \"errors.deadletterqueue.topic.name\": \"mig-dlq\","
                        + " \"errors.deadletterqueue.topic.replication.factor\": \"1\","
                        + " \"behavior.on.malformed.documents\": \"warn\", " + JSON_VALUES + "}");

        assertThat(es.http().refreshAndCount("mig-dlq-src")).isEqualTo(2);
        assertThat(get(es, "mig-dlq-src", "mig-dlq-src+0+0").get("_source").toString())
                .isEqualTo("{\"n\":1}");
        assertThat(get(es, "mig-dlq-src", "mig-dlq-src+0+3").get("_source").toString())
                .isEqualTo("{\"n\":3}");
        Map<String, TestTopics.DeadLetter> dead = TestTopics.deadLetters(kafka, "mig-dlq", 2);
        assertThat(dead.keySet()).containsExactlyInAnyOrder("d1", "d2");
        assertThat(new String(dead.get("d1").value(), StandardCharsets.UTF_8)).isEqualTo("{\"n\":\"five\"}");
        assertThat(dead.get("d2").headers()).containsEntry("kes.source.offset", "2");
    }

    /** {@code bin/kes migrate} the connector, then {@code bin/kes run} the job bounded (both child processes). */
    private static void migrateAndRun(Path home, ElasticsearchNode es, KafkaBroker kafka, String connectorJson)
            throws Exception {
        Files.createDirectories(home);
        Path connector = home.resolve("connector.json");
        Files.writeString(connector, connectorJson);
        Path mapping = home.resolve("mapping.yaml");
        try (KesProcess migrate = KesProcess.binKes(
                home,
                "migrate",
                "--from-connect",
                connector.toString(),
                "--out",
                mapping.toString(),
                "--bootstrap-servers",
                kafka.bootstrapServers())) {
            assertThat(migrate.awaitExit(Duration.ofMinutes(1))).isTrue();
            assertThat(migrate.exitCode()).as(migrate.console()).isZero();
        }
        String yaml = Files.readString(mapping);
        assertThat(yaml)
                .as("the job section comes last, so the test can bound it")
                .endsWith("\n");
        // A connector runs for ever; the test's job stops at the records produced before it started.
        Files.writeString(mapping, yaml + "  bounded: true\n  checkpoint_interval: 1s\n");
        // A port of the test's own: bin/kes takes 8081 when it looks free, which races with other jobs on this machine.
        Path flinkConf = KesProcess.localFlinkConf(home);
        Files.writeString(flinkConf, Files.readString(flinkConf) + "\nrest.port: " + Ports.free() + "\n");
        try (KesProcess job =
                KesProcess.binKesRun(home, "--config", mapping.toString(), "--flink-conf", flinkConf.toString())) {
            assertThat(job.awaitExit(Duration.ofMinutes(2)))
                    .as("the bounded job ended; console:\n%s", job.console())
                    .isTrue();
            assertThat(job.exitCode())
                    .as("exit code; mapping:\n%s\nconsole:\n%s", yaml, job.console())
                    .isZero();
        }
    }

    private static JsonNode get(ElasticsearchNode es, String index, String id) throws Exception {
        return JSON.readTree(es.http()
                .get("/" + index + "/_doc/" + URLEncoder.encode(id, StandardCharsets.UTF_8))
                .requireOk("get " + id)
                .body());
    }

    private static Map<String, JsonNode> search(ElasticsearchNode es, String index) throws Exception {
        JsonNode hits = JSON.readTree(es.http()
                        .get("/" + index + "/_search?size=100")
                        .requireOk("search " + index)
                        .body())
                .path("hits")
                .path("hits");
        Map<String, JsonNode> byId = new HashMap<>();
        hits.forEach(h -> byId.put(h.get("_id").asText(), h.get("_source")));
        return byId;
    }
}
