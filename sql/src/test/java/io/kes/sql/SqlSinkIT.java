package io.kes.sql;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.connector.KafkaCoordinateId;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.Http;
import io.kes.stack.KafkaBroker;
import io.kes.stack.junit.ElasticsearchExtension;
import io.kes.stack.junit.KafkaExtension;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code INSERT INTO} a {@code 'connector' = 'kes'} table from a Kafka table, through the planner
 * in a MiniCluster ({@link SqlFile#run}, what {@code bin/kes sql} runs), against a real broker and
 * a real Elasticsearch node.
 */
@ExtendWith({ElasticsearchExtension.class, KafkaExtension.class})
class SqlSinkIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void insertFromKafkaIndexesExactlyTheTopicsRowsInSingleShardBulks(ElasticsearchNode es, KafkaBroker kafka)
            throws Exception {
        String topic = "sql-logs";
        int rows = 10_000;
        kafka.createTopic(topic, 3, Map.of());
        try (var producer = producer(kafka)) {
            for (int i = 0; i < rows; i++) {
                String value = "{\"seq\":" + i + ",\"service\":\"svc-" + (i % 5) + "\",\"message\":\"line " + i + "\"}";
                producer.send(new ProducerRecord<>(topic, i % 3, null, value));
            }
            producer.flush();
        }
        Http http = es.http();
        http.send("DELETE", "/sql-logs?ignore_unavailable=true", null);
        http.send("PUT", "/sql-logs", "{\"settings\":{\"number_of_shards\":6,\"number_of_replicas\":0}}")
                .requireOk("create index");
        long bulkRequestsBefore = bulkRequests(http);

        SqlFile.run("""
                SET 'parallelism.default' = '2';
                CREATE TABLE logs (
                  seq BIGINT, service STRING, message STRING,
                  `topic` STRING METADATA VIRTUAL, `partition` INT METADATA VIRTUAL, `offset` BIGINT METADATA VIRTUAL
                ) WITH (
                  'connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s',
                  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json'
                );
                CREATE TABLE es_logs (
                  seq BIGINT, service STRING, message STRING,
                  kafka_topic STRING METADATA FROM 'kafka.topic', kafka_partition INT METADATA FROM 'kafka.partition',
                  kafka_offset BIGINT METADATA FROM 'kafka.offset'
                ) WITH ('connector' = 'kes', 'hosts' = '%s', 'index' = 'sql-logs', 'bulk.max-docs' = '500');
                INSERT INTO es_logs SELECT seq, service, message, `topic`, `partition`, `offset` FROM logs;
                """.formatted(topic, kafka.bootstrapServers(), es.url()));

        assertThat(http.refreshAndCount("sql-logs")).isEqualTo(rows);
        long requests = bulkRequests(http) - bulkRequestsBefore;
        long shardOperations = JSON.readTree(
                        http.get("/sql-logs/_stats/bulk").requireOk("stats").body())
                .path("_all")
                .path("primaries")
                .path("bulk")
                .path("total_operations")
                .asLong();
        assertThat(requests).isGreaterThanOrEqualTo(rows / 500);
        assertThat(shardOperations)
                .as("shard-level bulk operations = bulk requests: every bulk touched one shard")
                .isEqualTo(requests);

        // Ids are the Kafka coordinates, documents the rows without the metadata columns.
        JsonNode hits = JSON.readTree(http.send(
                                "POST",
                                "/sql-logs/_search",
                                "{\"size\":3,\"query\":{\"terms\":{\"seq\":[0,1,9999]}},\"sort\":[{\"seq\":\"asc\"}]}")
                        .requireOk("search")
                        .body())
                .path("hits")
                .path("hits");
        assertThat(hits).hasSize(3);
        for (JsonNode hit : hits) {
            long seq = hit.path("_source").path("seq").asLong();
            int partition = (int) (seq % 3);
            long offset = seq / 3;
            assertThat(hit.path("_id").asText()).isEqualTo(KafkaCoordinateId.of(topic, partition, offset));
            assertThat(JSON.convertValue(hit.path("_source"), Map.class))
                    .isEqualTo(Map.of("seq", (int) seq, "service", "svc-" + (seq % 5), "message", "line " + seq));
        }
    }

    /**
     * A GROUP BY under a filter: counts go up (updates) and keys whose count reaches 3 leave the
     * result (deletes). Index from a column template, routing by a column: every key ends as the
     * query says, deleted keys absent.
     */
    @Test
    void changelogOfAGroupByEndsInTheQuerysFinalStateForEveryKey(ElasticsearchNode es, KafkaBroker kafka)
            throws Exception {
        String topic = "sql-events";
        int keys = 300;
        kafka.createTopic(topic, 2, Map.of());
        Map<Integer, Integer> counts = new HashMap<>();
        Map<Integer, Long> sums = new HashMap<>();
        try (var producer = producer(kafka)) {
            for (int i = 0; i < 1500; i++) {
                int key = (i * 7919) % keys;
                if (counts.getOrDefault(key, 0) >= key % 5) {
                    continue; // key k gets k % 5 events, so some stay below 3 and some reach it
                }
                counts.merge(key, 1, Integer::sum);
                sums.merge(key, (long) i, Long::sum);
                producer.send(new ProducerRecord<>(topic, key % 2, null, "{\"k\":" + key + ",\"v\":" + i + "}"));
            }
            producer.flush();
        }
        Http http = es.http();
        for (String index : new String[] {"sql-counts-even", "sql-counts-odd"}) {
            http.send("DELETE", "/" + index + "?ignore_unavailable=true", null);
            http.send("PUT", "/" + index, "{\"settings\":{\"number_of_shards\":3,\"number_of_replicas\":0}}")
                    .requireOk("create index");
        }

        SqlFile.run("""
                SET 'parallelism.default' = '2';
                CREATE TABLE events (k INT, v BIGINT) WITH (
                  'connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s',
                  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json'
                );
                CREATE TABLE counts (k INT, parity STRING, n BIGINT, total BIGINT, PRIMARY KEY (k, parity) NOT ENFORCED)
                WITH ('connector' = 'kes', 'hosts' = '%s', 'index' = 'sql-counts-{parity}', 'routing' = 'parity',
                      'document-id.key-delimiter' = ':', 'bulk.linger' = '50ms');
                INSERT INTO counts
                SELECT k, parity, n, total FROM (
                  SELECT k, CASE WHEN MOD(k, 2) = 0 THEN 'even' ELSE 'odd' END AS parity, COUNT(*) AS n, SUM(v) AS total
                  FROM events GROUP BY k, CASE WHEN MOD(k, 2) = 0 THEN 'even' ELSE 'odd' END
                ) WHERE n < 3;
                """.formatted(topic, kafka.bootstrapServers(), es.url()));

        http.send("POST", "/sql-counts-*/_refresh", null).requireOk("refresh");
        Map<String, JsonNode> documents = new HashMap<>();
        JsonNode hits = JSON.readTree(http.send("POST", "/sql-counts-*/_search", "{\"size\":1000}")
                        .requireOk("search")
                        .body())
                .path("hits")
                .path("hits");
        hits.forEach(h -> documents.put(h.path("_id").asText(), h));
        Map<String, String> expected = new HashMap<>();
        counts.forEach((k, n) -> {
            if (n < 3) {
                String parity = k % 2 == 0 ? "even" : "odd";
                expected.put(
                        k + ":" + parity,
                        "sql-counts-" + parity + " n=" + n + " total=" + sums.get(k) + " routing=" + parity);
            }
        });
        Map<String, String> actual = new HashMap<>();
        documents.forEach((id, h) -> actual.put(
                id,
                h.path("_index").asText() + " n=" + h.path("_source").path("n").asLong() + " total="
                        + h.path("_source").path("total").asLong() + " routing="
                        + h.path("_routing").asText()));
        assertThat(counts.values()).contains(3, 4); // the run has deletes to prove
        assertThat(actual).isEqualTo(expected);
    }

    @Test
    void compositeKeysWhoseJoinedValuesCollideStayApartWithKeyEscape(ElasticsearchNode es) throws Exception {
        Http http = es.http();
        for (String index : new String[] {"sql-keys-joined", "sql-keys-escaped"}) {
            http.send("DELETE", "/" + index + "?ignore_unavailable=true", null);
        }
        SqlFile.run("""
                CREATE TABLE joined (a STRING, b STRING, v INT, PRIMARY KEY (a, b) NOT ENFORCED)
                WITH ('connector' = 'kes', 'hosts' = '%1$s', 'index' = 'sql-keys-joined');
                CREATE TABLE escaped (a STRING, b STRING, v INT, PRIMARY KEY (a, b) NOT ENFORCED)
                WITH ('connector' = 'kes', 'hosts' = '%1$s', 'index' = 'sql-keys-escaped', 'document-id.key-escape' = 'true');
                EXECUTE STATEMENT SET BEGIN
                INSERT INTO joined VALUES ('a_b', 'c', 1), ('a', 'b_c', 2), ('x', 'y', 3);
                INSERT INTO escaped VALUES ('a_b', 'c', 1), ('a', 'b_c', 2), ('x', 'y', 3);
                END;
                """.formatted(es.url()));

        http.send("POST", "/sql-keys-*/_refresh", null).requireOk("refresh");
        assertThat(idsAndValues(http, "sql-keys-joined"))
                .as("joined as Flink's own connectors join them: one id for two keys")
                .containsOnlyKeys("a_b_c", "x_y")
                .containsEntry("x_y", 3);
        assertThat(idsAndValues(http, "sql-keys-escaped")).isEqualTo(Map.of("a\\_b_c", 1, "a_b\\_c", 2, "x_y", 3));
    }

    private static Map<String, Integer> idsAndValues(Http http, String index) throws Exception {
        Map<String, Integer> out = new HashMap<>();
        JSON.readTree(http.send("POST", "/" + index + "/_search", "{\"size\":100}")
                        .requireOk("search")
                        .body())
                .path("hits")
                .path("hits")
                .forEach(h -> out.put(
                        h.path("_id").asText(), h.path("_source").path("v").asInt()));
        return out;
    }

    private static KafkaProducer<String, String> producer(KafkaBroker kafka) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    /** {@code _bulk} HTTP requests the node has answered, over all bulk routes. */
    private static long bulkRequests(Http http) throws Exception {
        long total = 0;
        for (JsonNode node : JSON.readTree(
                        http.get("/_nodes/stats/http").requireOk("http stats").body())
                .path("nodes")) {
            for (String route : new String[] {"/_bulk", "/{index}/_bulk"}) {
                total += node.path("http")
                        .path("routes")
                        .path(route)
                        .path("requests")
                        .path("count")
                        .asLong();
            }
        }
        return total;
    }
}
