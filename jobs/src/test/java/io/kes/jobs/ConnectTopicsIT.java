package io.kes.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.KafkaBroker;
import io.kes.stack.junit.ElasticsearchExtension;
import io.kes.stack.junit.KafkaExtension;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Topics as Kafka Connect users have them, through the YAML job on real Kafka and Elasticsearch:
 * Connect's JSON envelope upserted with tombstone deletes, plain strings, Debezium change events.
 * Every document's final state is checked (and that no other document exists), then the whole
 * topic is read again over those documents, as a restore replays it, and must end on the same state.
 */
@ExtendWith({ElasticsearchExtension.class, KafkaExtension.class})
class ConnectTopicsIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static String envelope(String schema, String payload) {
        return "{\"schema\":" + schema + ",\"payload\":" + payload + "}";
    }

    private static String key(String k) {
        return envelope("{\"type\":\"string\"}", "\"" + k + "\"");
    }

    private static final String ROW = "{\"type\":\"struct\",\"optional\":true,\"fields\":["
            + "{\"field\":\"name\",\"type\":\"string\",\"optional\":true},{\"field\":\"n\",\"type\":\"int32\",\"optional\":true},"
            + "{\"field\":\"at\",\"type\":\"int64\",\"optional\":true,\"name\":\"org.apache.kafka.connect.data.Timestamp\"}]}";

    private static String row(String payload) {
        return envelope(ROW, payload);
    }

    private static String event(String op, String before, String after) {
        return "{\"before\":" + before + ",\"after\":" + after + ",\"op\":\"" + op
                + "\",\"source\":{\"connector\":\"postgresql\",\"table\":\"customers\"},\"ts_ms\":1}";
    }

    @Test
    void connectEnvelopesUpsertsWithTombstonesStringsAndDebeziumEventsEndOnTheirLastState(
            ElasticsearchNode es, KafkaBroker kafka) throws Exception {
        TestTopics.produce(
                kafka,
                "it-connect-upserts",
                Map.of(),
                List.of(
                        TestTopics.KeyValue.of(key("k1"), row("{\"name\":\"a\",\"n\":1,\"at\":1700000000000}")),
                        TestTopics.KeyValue.of(key("k2"), row("{\"name\":\"b\",\"n\":1}")),
                        TestTopics.KeyValue.of(key("k1"), row("{\"n\":2}")), // a partial update, merged
                        TestTopics.KeyValue.of(key("k2"), null), // a tombstone deletes
                        TestTopics.KeyValue.of(key("k3"), row("{\"name\":\"c\",\"n\":1}")),
                        TestTopics.KeyValue.of(key("k3"), envelope("null", "null")), // Connect's null value deletes too
                        TestTopics.KeyValue.of(key("k3"), row("{\"n\":3}")), // created again: nothing of before
                        TestTopics.KeyValue.of(key("k4"), null), // a delete of what never was
                        TestTopics.KeyValue.of("bad-truncated", "{\"schema\":" + ROW + ",\"payl"),
                        TestTopics.KeyValue.of("bad-plain-json", "{\"name\":\"no envelope\"}")));
        TestTopics.produce(
                kafka,
                "it-connect-strings",
                Map.of(),
                List.of(
                        TestTopics.KeyValue.of("s1", "GET /a 200"),
                        TestTopics.KeyValue.of("s2", "{\"looks\":\"like json\"}"),
                        new TestTopics.KeyValue(
                                TestTopics.utf8("bad-latin1"), new byte[] {'c', 'a', 'f', (byte) 0xe9})));
        String c1 = "{\"id\":1,\"email\":\"one@x\"}";
        TestTopics.produce(
                kafka,
                "it-connect-debezium",
                Map.of(),
                List.of(
                        TestTopics.KeyValue.of("{\"id\":1}", event("r", "null", c1)),
                        TestTopics.KeyValue.of("{\"id\":2}", event("c", "null", "{\"id\":2,\"email\":\"two@x\"}")),
                        TestTopics.KeyValue.of("{\"id\":1}", event("u", c1, "{\"id\":1,\"email\":\"uno@x\"}")),
                        TestTopics.KeyValue.of("{\"id\":2}", event("d", "{\"id\":2,\"email\":\"two@x\"}", "null")),
                        TestTopics.KeyValue.of("{\"id\":2}", null), // Debezium's tombstone after the delete
                        TestTopics.KeyValue.of("{\"id\":3}", event("c", "null", "{\"id\":3,\"email\":\"three@x\"}")),
                        TestTopics.KeyValue.of("bad-op", event("x", "null", "{\"id\":9}")),
                        TestTopics.KeyValue.of("bad-truncated-event", "{\"before\":null,\"after\":{\"id\":")));
        kafka.createTopic("it-connect-dead", 1, Map.of());
        String routes = "  - topics: [it-connect-upserts]\n    index: it-connect-upserts\n    format: connect-json\n"
                + "    key_format: connect-json\n    id: key\n    op: upsert-delete-on-tombstone\n"
                + "  - topics: [it-connect-strings]\n    index: it-connect-strings\n    format: string\n"
                + "    id: key\n"
                + "  - topics: [it-connect-debezium]\n    index: it-connect-debezium\n    cdc: debezium\n"
                + "    key_format: json\n    id: {key_field: id}\n"
                + "errors:\n  tolerance: all\n  dead_letter_topic: it-connect-dead";

        TestTopics.runBounded(es, kafka, routes);
        Map<String, Map<String, JsonNode>> first = finalState(es);
        assertThat(first.get("it-connect-upserts"))
                .isEqualTo(Map.of(
                        "k1", json("{\"name\":\"a\",\"n\":2,\"at\":\"2023-11-14T22:13:20Z\"}"),
                        "k3", json("{\"n\":3}")));
        assertThat(first.get("it-connect-strings"))
                .isEqualTo(Map.of(
                        "s1", json("{\"message\":\"GET /a 200\"}"),
                        "s2", json("{\"message\":\"{\\\"looks\\\":\\\"like json\\\"}\"}")));
        assertThat(first.get("it-connect-debezium"))
                .isEqualTo(Map.of(
                        "1", json("{\"id\":1,\"email\":\"uno@x\"}"), "3", json("{\"id\":3,\"email\":\"three@x\"}")));

        Map<String, TestTopics.DeadLetter> dead = TestTopics.deadLetters(kafka, "it-connect-dead", 5);
        assertThat(dead.keySet())
                .containsExactlyInAnyOrder(
                        "bad-truncated", "bad-plain-json", "bad-latin1", "bad-op", "bad-truncated-event");
        Map<String, String> reasons = new HashMap<>();
        dead.forEach((k, letter) -> reasons.put(k, letter.headers().get("kes.error.type")));
        assertThat(reasons)
                .isEqualTo(Map.of(
                        "bad-truncated", "malformed_json",
                        "bad-plain-json", "not_connect_envelope",
                        "bad-latin1", "not_utf8",
                        "bad-op", "unknown_cdc_op",
                        "bad-truncated-event", "malformed_json"));
        assertThat(dead.get("bad-latin1").value()).as("the record as it was").containsExactly('c', 'a', 'f', 0xe9);
        assertThat(dead.get("bad-op").headers()).containsEntry("kes.source.topic", "it-connect-debezium");

        // Read everything again over those documents, as a restore from an early checkpoint does: the
        // upserts, deletes and change events replay onto the same final state.
        TestTopics.runBounded(es, kafka, routes);
        assertThat(finalState(es)).isEqualTo(first);
    }

    private static Map<String, Map<String, JsonNode>> finalState(ElasticsearchNode es) throws Exception {
        Map<String, Map<String, JsonNode>> state = new HashMap<>();
        for (String index : List.of("it-connect-upserts", "it-connect-strings", "it-connect-debezium")) {
            es.http().refreshAndCount(index);
            JsonNode hits = JSON.readTree(es.http()
                            .get("/" + index + "/_search?size=100")
                            .requireOk("search " + index)
                            .body())
                    .path("hits")
                    .path("hits");
            Map<String, JsonNode> docs = new HashMap<>();
            hits.forEach(h -> docs.put(h.get("_id").asText(), h.get("_source")));
            state.put(index, docs);
        }
        return state;
    }

    private static JsonNode json(String s) throws Exception {
        return JSON.readTree(s);
    }
}
