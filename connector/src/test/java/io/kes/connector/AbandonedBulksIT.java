package io.kes.connector;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.stack.FaultProxy;
import io.kes.stack.Http;
import io.kes.stack.SearchNode;
import io.kes.stack.junit.SearchTarget;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 27 item 3: a bulk kes gave up waiting for (no answer within {@code elasticsearch.socket_timeout})
 * may still be running in Elasticsearch, and be applied after its retry and after newer writes of
 * its ids. The fault proxy holds the first bulk inside Elasticsearch as a running task (it waits
 * for a replica that one node cannot assign); kes times out, and the test lets the held bulk apply
 * seconds later, by when the stream has ended. Every id must still end on its last write: kes may
 * send the ids of a bulk it gave up on again only once Elasticsearch no longer runs that bulk.
 */
class AbandonedBulksIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int KEYS = 50;
    private static final int RECORDS = 1_000;

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.kes.stack.junit.SearchTarget#newestOrAll")
    void aBulkAppliedAfterKesGaveUpOnItDoesNotOverwriteNewerWrites(SearchTarget target) throws Exception {
        SearchNode node = target.node();
        Http http = node.http();
        http.send("DELETE", "/abandoned?ignore_unavailable=true", null);
        // one replica on one node: never assigned, so a bulk asking for every copy waits
        http.send("PUT", "/abandoned", "{\"settings\":{\"number_of_shards\":1,\"number_of_replicas\":1}}")
                .requireOk("create");
        try (FaultProxy proxy = FaultProxy.start("127.0.0.1", node.httpPort())) {
            proxy.holdBulksInElasticsearch(1, Duration.ofSeconds(60));
            ElasticsearchSink sink = ElasticsearchSink.builder()
                    .setHosts(proxy.url())
                    .set(ElasticsearchSinkOptions.PRIMARY_NODE_ROUTING, false) // through the proxy, not around it
                    .set(ElasticsearchSinkOptions.SOCKET_TIMEOUT, Duration.ofSeconds(2))
                    .setBulkMaxDocs(KEYS)
                    .setBulkLinger(Duration.ofMillis(100))
                    .setRetry(Duration.ofMillis(100), Duration.ofMillis(500), Duration.ofSeconds(90))
                    .build();
            JobClient job = SinkPipelines.start(
                    sink,
                    RECORDS,
                    500,
                    1,
                    null,
                    i -> DocumentOperation.index(
                            "abandoned", "k" + (i % KEYS), ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8)));

            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (proxy.stats().heldBulks() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(proxy.stats().heldBulks())
                    .as("the first bulk is held in Elasticsearch")
                    .isEqualTo(1);
            Thread.sleep(8_000); // the stream (2 s) is over by now, unless kes waits for the held bulk
            http.send("PUT", "/abandoned/_settings", "{\"index\":{\"number_of_replicas\":0}}")
                    .requireOk("drop the replica");
            job.getJobExecutionResult().get();
            BulkTasks.awaitNone(http);
        }

        http.send("POST", "/abandoned/_refresh", null).requireOk("refresh");
        JsonNode hits = JSON.readTree(
                        http.get("/abandoned/_search?size=" + KEYS + "&filter_path=hits.hits._id,hits.hits._source")
                                .requireOk("search")
                                .body())
                .path("hits")
                .path("hits");
        Map<String, Long> stored = new TreeMap<>();
        hits.forEach(hit -> stored.put(
                hit.path("_id").asText(), hit.path("_source").path("n").asLong()));
        Map<String, Long> expected = new TreeMap<>();
        for (int i = RECORDS - KEYS; i < RECORDS; i++) {
            expected.put("k" + (i % KEYS), (long) i);
        }
        assertThat(stored)
                .as("every id at its last write, none taken back by the held bulk")
                .isEqualTo(expected);
        assertThat(RecordingReporter.sum("kes.bulksAwaitedAfterNoAnswer"))
                .as("kes waited for the bulk it gave up on")
                .isGreaterThanOrEqualTo(1);
    }
}
