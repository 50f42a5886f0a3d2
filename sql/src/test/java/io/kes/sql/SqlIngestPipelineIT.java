package io.kes.sql;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.stack.Http;
import io.kes.stack.KafkaBroker;
import io.kes.stack.SearchNode;
import io.kes.stack.SharedServers;
import io.kes.stack.junit.SearchTarget;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code 'pipeline'} on a kes table: every row's document goes through the ingest pipeline, and a
 * pipeline that moves it ({@code _routing}) is handled as the job's {@code routes[].pipeline} is (kes
 * cannot predict the shard, writes that index in ordinary bulks) with every document where the
 * pipeline put it. On OpenSearch 3.x, the one target with ingest processors.
 */
class SqlIngestPipelineIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int ROWS = 2_000;
    private static final int USERS = 13;

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.kes.stack.junit.SearchTarget#withIngestProcessors")
    void everyRowGoesThroughTheTablesPipelineAndEndsWhereThePipelinePutIt(SearchTarget target) throws Exception {
        SearchNode node = target.node();
        KafkaBroker kafka = SharedServers.kafka();
        String topic = "sql-pipeline-rows";
        kafka.createTopic(topic, 2, Map.of());
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        try (var producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < ROWS; i++) {
                producer.send(new ProducerRecord<>(
                        topic, i % 2, null, "{\"seq\":" + i + ",\"user\":\"u" + (i % USERS) + "\"}"));
            }
            producer.flush();
        }
        Http http = node.http();
        // Enriches the source, and moves the document to the shard of its user: kes cannot
        // predict that shard, so it must write the index in ordinary bulks and lose nothing.
        http.send(
                        "PUT",
                        "/_ingest/pipeline/sql-enrich-and-route",
                        "{\"processors\":[{\"set\":{\"field\":\"enriched\","
                                + "\"value\":true}},{\"rename\":{\"field\":\"user\",\"target_field\":\"_routing\"}}]}")
                .requireOk("pipeline sql-enrich-and-route");
        http.send("DELETE", "/sql-pipeline?ignore_unavailable=true", null);
        http.send("PUT", "/sql-pipeline", "{\"settings\":{\"number_of_shards\":4,\"number_of_replicas\":0}}")
                .requireOk("create index");

        SqlFile.run("""
                SET 'parallelism.default' = '2';
                CREATE TABLE rows_in (
                  seq BIGINT, `user` STRING,
                  `topic` STRING METADATA VIRTUAL, `partition` INT METADATA VIRTUAL, `offset` BIGINT METADATA VIRTUAL
                ) WITH (
                  'connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s',
                  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json'
                );
                CREATE TABLE es_rows (
                  seq BIGINT, `user` STRING,
                  kafka_topic STRING METADATA FROM 'kafka.topic', kafka_partition INT METADATA FROM 'kafka.partition',
                  kafka_offset BIGINT METADATA FROM 'kafka.offset'
                ) WITH ('connector' = 'kes', 'hosts' = '%s', 'index' = 'sql-pipeline', 'pipeline' = 'sql-enrich-and-route',
                        'bulk.linger' = '200ms');
                INSERT INTO es_rows SELECT seq, `user`, `topic`, `partition`, `offset` FROM rows_in;
                """.formatted(topic, kafka.bootstrapServers(), node.url()));

        assertThat(wrongDocuments(http, "sql-pipeline"))
                .as("documents not as the pipeline made them, or not where it put them")
                .isEmpty();
    }

    /** Every seq once, enriched, without its user field and routed by it; the list of what differs. */
    private static List<String> wrongDocuments(Http http, String index) throws Exception {
        assertThat(http.refreshAndCount(index)).as(index + " documents").isEqualTo(ROWS);
        JsonNode hits = JSON.readTree(http.get("/" + index + "/_search?size=" + ROWS
                                + "&filter_path=hits.hits._routing,hits.hits._source")
                        .requireOk("search " + index)
                        .body())
                .path("hits")
                .path("hits");
        boolean[] seen = new boolean[ROWS];
        List<String> wrong = new ArrayList<>();
        for (JsonNode hit : hits) {
            JsonNode source = hit.path("_source");
            int seq = source.path("seq").asInt(-1);
            if (seq < 0 || seen[seq]) {
                wrong.add("seq " + seq + (seq >= 0 ? " twice" : ""));
                continue;
            }
            seen[seq] = true;
            String user = "u" + (seq % USERS);
            if (!source.path("enriched").asBoolean(false)
                    || source.has("user")
                    || !user.equals(hit.path("_routing").asText(null))) {
                wrong.add("seq " + seq + ": " + source + " routing " + hit.path("_routing")
                        + ", expected enriched, routing " + user);
            }
        }
        return wrong;
    }
}
