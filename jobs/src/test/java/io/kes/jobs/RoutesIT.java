package io.kes.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.stack.ElasticsearchNode;
import io.kes.stack.KafkaBroker;
import io.kes.stack.junit.ElasticsearchExtension;
import io.kes.stack.junit.KafkaExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** What users configure in routes, end to end against real Kafka and Elasticsearch. */
@ExtendWith({ElasticsearchExtension.class, KafkaExtension.class})
class RoutesIT {

    @Test
    void upsertsMergeAndTombstonesDelete(ElasticsearchNode es, KafkaBroker kafka) throws Exception {
        produce(
                kafka,
                "it-upserts",
                Map.of(),
                List.of(kv("k1", "{\"a\":1}"), kv("k2", "{\"a\":2}"), kv("k1", "{\"b\":3}")));
        run(es, kafka, "  - {topics: [it-upserts], index: it-upserts, id: key, op: upsert}");
        assertThat(TestTopics.source(es, "it-upserts", "k1")).isEqualTo("{\"a\":1,\"b\":3}");

        produce(
                kafka,
                "it-tombstones",
                Map.of(),
                List.of(kv("k1", "{\"a\":1}"), kv("k2", "{\"a\":2}"), kv("k2", null)));
        run(es, kafka, "  - {topics: [it-tombstones], index: it-tombstones, id: key, op: delete-on-tombstone}");
        assertThat(es.http().refreshAndCount("it-tombstones")).isEqualTo(1);
        assertThat(es.http().get("/it-tombstones/_doc/k2").status()).isEqualTo(404);
    }

    @Test
    void everyIdStrategyMakesReplaysOverwrite(ElasticsearchNode es, KafkaBroker kafka) throws Exception {
        List<TestTopics.KeyValue> records = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            records.add(kv(null, "{\"order\":\"o-" + i + "\",\"user\":\"u" + (i % 7) + "\",\"n\":" + i + "}"));
        }
        produce(kafka, "it-ids", Map.of(), records);
        Map<String, String> routes = Map.of(
                "it-ids-kafka", "id: kafka",
                "it-ids-field", "id: {field: order}",
                "it-ids-hash", "id: {hash: [user, order]}",
                "it-ids-create", "id: {field: order}, op: create");
        for (Map.Entry<String, String> route : routes.entrySet()) {
            String yaml = "  - {topics: [it-ids], index: " + route.getKey() + ", " + route.getValue() + "}";
            run(es, kafka, yaml);
            run(es, kafka, yaml); // the same offsets again
            assertThat(es.http().refreshAndCount(route.getKey()))
                    .as(route.getKey())
                    .isEqualTo(records.size());
        }
    }

    @Test
    void indexNamesFollowFieldsAndEventDates(ElasticsearchNode es, KafkaBroker kafka) throws Exception {
        produce(
                kafka,
                "it-dated",
                Map.of(),
                List.of(
                        kv(null, "{\"service\":\"cart\",\"@timestamp\":\"2026-11-20T10:00:00Z\"}"),
                        kv(null, "{\"service\":\"cart\",\"@timestamp\":\"2026-11-21T10:00:00Z\"}"),
                        kv(null, "{\"service\":\"Search\",\"@timestamp\":\"2026-11-21T11:00:00Z\"}")));
        run(es, kafka, "  - {topics: [it-dated], index: \"it-dated-{service}-{@timestamp|yyyy.MM.dd}\"}");
        assertThat(es.http().refreshAndCount("it-dated-cart-2026.11.20")).isEqualTo(1);
        assertThat(es.http().refreshAndCount("it-dated-cart-2026.11.21")).isEqualTo(1);
        assertThat(es.http().refreshAndCount("it-dated-search-2026.11.21")).isEqualTo(1);
    }

    @Test
    void dataStreamsGetCreateOperationsAndReplaysCountAsSuccess(ElasticsearchNode es, KafkaBroker kafka)
            throws Exception {
        List<TestTopics.KeyValue> records = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            records.add(kv(null, "{\"message\":\"m" + i + "\"}"));
        }
        produce(kafka, "it-stream", Map.of(), records);
        String route = "  - topics: [it-stream]\n    data_stream: it-stream-default\n    index_template: {replicas: 0}";
        run(es, kafka, route);
        run(es, kafka, route);
        assertThat(es.http()
                        .get("/_resolve/index/it-stream-default")
                        .requireOk("resolve")
                        .body())
                .contains("\"data_streams\":[{\"name\":\"it-stream-default\"");
        assertThat(es.http().refreshAndCount("it-stream-default")).isEqualTo(records.size());
    }

    @Test
    void zstdCompressedTopicsAreRead(ElasticsearchNode es, KafkaBroker kafka) throws Exception {
        List<TestTopics.KeyValue> records = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            records.add(kv(null, "{\"n\":" + i + ",\"text\":\"" + "compressible ".repeat(20) + "\"}"));
        }
        produce(kafka, "it-zstd", Map.of("compression.type", "zstd"), records);
        run(es, kafka, "  - {topics: [it-zstd], index: it-zstd}");
        assertThat(es.http().refreshAndCount("it-zstd")).isEqualTo(records.size());
    }

    @Test
    void recordsThatFailGoToTheDeadLetterTopicWithTheirReasons(
            ElasticsearchNode es, KafkaBroker kafka, @TempDir Path dir) throws Exception {
        Path mappings = dir.resolve("mappings.json");
        Files.writeString(mappings, "{\"properties\":{\"n\":{\"type\":\"integer\"}}}");
        List<TestTopics.KeyValue> records = List.of(
                kv("good-1", "{\"id\":\"1\",\"kind\":\"ok\",\"n\":1}"),
                kv("bad-json", "{\"id\":\"2\", oops"),
                kv("no-id", "{\"kind\":\"ok\",\"n\":3}"),
                kv("bad-time", "{\"id\":\"4\",\"kind\":\"ok\",\"@timestamp\":\"someday\"}"),
                kv("mapping", "{\"id\":\"5\",\"kind\":\"ok\",\"n\":\"five\"}"),
                kv("bad-index", "{\"id\":\"6\",\"kind\":\"no|pe\",\"n\":6}"),
                kv("good-2", "{\"id\":\"7\",\"kind\":\"ok\",\"n\":7}"));
        produce(kafka, "it-dlq", Map.of(), records);
        kafka.createTopic("it-dlq-dead", 1, Map.of());
        run(
                es,
                kafka,
                "  - topics: [it-dlq]\n    index: \"it-dlq-{kind}-{@timestamp|yyyy}\"\n    id: {field: id}\n"
                        + "    index_template: {replicas: 0, mappings_file: " + mappings + "}\n"
                        + "errors:\n  tolerance: all\n  dead_letter_topic: it-dlq-dead");

        long indexed = es.http().refreshAndCount("it-dlq-*");
        Map<String, TestTopics.DeadLetter> dead = TestTopics.deadLetters(kafka, "it-dlq-dead", 5);
        assertThat(indexed + dead.size())
                .as("records in = indexed + dead-lettered")
                .isEqualTo(records.size());
        assertThat(indexed).isEqualTo(2);
        assertThat(dead.keySet()).containsExactlyInAnyOrder("bad-json", "no-id", "bad-time", "mapping", "bad-index");
        assertThat(dead.get("bad-json").headers())
                .containsEntry("kes.stage", "decode")
                .containsEntry("kes.error.type", "malformed_json")
                .containsEntry("kes.source.topic", "it-dlq")
                .containsEntry("kes.source.offset", "1");
        assertThat(dead.get("no-id").headers()).containsEntry("kes.error.type", "missing_id");
        assertThat(dead.get("bad-time").headers()).containsEntry("kes.error.type", "unparsable_timestamp");
        assertThat(dead.get("mapping").headers())
                .containsEntry("kes.stage", "index")
                .containsEntry("kes.error.status", "400");
        assertThat(dead.get("mapping").headers().get("kes.error.type"))
                .isIn("document_parsing_exception", "mapper_parsing_exception");
        assertThat(dead.get("mapping").headers().get("kes.error.reason")).contains("[n]");
        assertThat(dead.get("bad-index").headers())
                .containsEntry("kes.stage", "index")
                .containsEntry("kes.error.type", "invalid_index_name_exception");
    }

    private static TestTopics.KeyValue kv(String key, String value) {
        return TestTopics.KeyValue.of(key, value);
    }

    private static void produce(
            KafkaBroker kafka, String topic, Map<String, String> topicConfig, List<TestTopics.KeyValue> records)
            throws Exception {
        TestTopics.produce(kafka, topic, topicConfig, records);
    }

    private static void run(ElasticsearchNode es, KafkaBroker kafka, String routesAndMore) throws Exception {
        TestTopics.runBounded(es, kafka, routesAndMore);
    }
}
