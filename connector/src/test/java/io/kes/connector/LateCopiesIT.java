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
import java.util.function.LongSupplier;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 37 item 1: a copy of a bulk that Elasticsearch still holds must not land after a later
 * write of the same id, however kes learnt that the attempt failed. {@link AbandonedBulksIT} covers
 * a bulk with no answer at all; here the answer comes from something in between, or never reaches
 * kes's own retries:
 * <ul>
 *   <li>a load balancer answers 504 (or 502) while Elasticsearch still runs the bulk;
 *   <li>with two configured hosts, the REST client would send a timed-out bulk to the second host
 *       on its own, before kes hears of the timeout.
 * </ul>
 * The fault proxy holds the first bulk inside Elasticsearch as a running task (it waits for a
 * replica that one node cannot assign) and lets it apply seconds later, when the stream has
 * ended. The stream is a change stream on hot keys: each key gets a value, a tombstone, a value,
 * over and over; every document must end on the stream's last operation of its key (present with
 * that value, or absent after a tombstone).
 */
class LateCopiesIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String INDEX = "late-copies";
    private static final int KEYS = 50;
    /** 21 rounds over the keys: each key's last operation is a value or a tombstone, by key. */
    private static final int RECORDS = 21 * KEYS;

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.kes.stack.junit.SearchTarget#newestOrAll")
    void aGatewayTimeoutWhileElasticsearchStillRunsTheBulkIsWaitedFor(SearchTarget target) throws Exception {
        SearchNode node = target.node();
        Http http = node.http();
        createIndexWithAnUnassignableReplica(http);
        try (FaultProxy proxy = FaultProxy.start("127.0.0.1", node.httpPort())) {
            proxy.holdBulksInElasticsearch(1, Duration.ofSeconds(60));
            proxy.answerHeldBulksWith(504, Duration.ofSeconds(3));
            // the proxy answers first: kes's own timeout is far longer
            JobClient job = startStream(Duration.ofSeconds(30), proxy.url());

            awaitAtLeastOne(() -> proxy.stats().gatewayAnswers(), "the held bulk is answered 504 by the proxy");
            releaseHeldBulkLater(http);
            job.getJobExecutionResult().get();
            BulkTasks.awaitNone(http);
        }
        assertEveryKeyEndsOnItsLastOperation(http);
        assertThat(RecordingReporter.sum("kes.bulksAwaitedAfterNoAnswer"))
                .as("kes waited for the bulk the proxy answered 504")
                .isGreaterThanOrEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.kes.stack.junit.SearchTarget#newestOrAll")
    void aTimedOutBulkIsNotSentToTheNextConfiguredHostBehindKessBack(SearchTarget target) throws Exception {
        SearchNode node = target.node();
        Http http = node.http();
        createIndexWithAnUnassignableReplica(http);
        try (FaultProxy holding = FaultProxy.start("127.0.0.1", node.httpPort());
                FaultProxy other = FaultProxy.start("127.0.0.1", node.httpPort())) {
            holding.holdBulksInElasticsearch(1, Duration.ofSeconds(60));
            JobClient job = startStream(Duration.ofSeconds(2), holding.url(), other.url());

            awaitAtLeastOne(() -> holding.stats().heldBulks(), "a bulk is held behind the first host");
            releaseHeldBulkLater(http);
            job.getJobExecutionResult().get();
            BulkTasks.awaitNone(http);
        }
        assertEveryKeyEndsOnItsLastOperation(http);
        assertThat(RecordingReporter.sum("kes.bulksAwaitedAfterNoAnswer"))
                .as("kes itself saw the timeout and waited for the held bulk")
                .isGreaterThanOrEqualTo(1);
    }

    private static void createIndexWithAnUnassignableReplica(Http http) throws Exception {
        http.send("DELETE", "/" + INDEX + "?ignore_unavailable=true", null);
        // one replica on one node: never assigned, so a bulk asking for every copy waits
        http.send("PUT", "/" + INDEX, "{\"settings\":{\"number_of_shards\":1,\"number_of_replicas\":1}}")
                .requireOk("create");
    }

    private static JobClient startStream(Duration socketTimeout, String... hosts) throws Exception {
        ElasticsearchSink sink = ElasticsearchSink.builder()
                .setHosts(hosts)
                .set(ElasticsearchSinkOptions.PRIMARY_NODE_ROUTING, false) // through the proxies, not around them
                .set(ElasticsearchSinkOptions.SOCKET_TIMEOUT, socketTimeout)
                .setBulkMaxDocs(KEYS)
                .setBulkLinger(Duration.ofMillis(100))
                .setRetry(Duration.ofMillis(100), Duration.ofMillis(500), Duration.ofSeconds(90))
                .build();
        return SinkPipelines.start(sink, RECORDS, 500, 1, null, LateCopiesIT::operation);
    }

    /** Record {@code i}: key {@code i mod KEYS}, and by round a value, a tombstone or a value. */
    private static DocumentOperation operation(long i) {
        String id = "k" + (i % KEYS);
        if (isTombstone(i)) {
            return DocumentOperation.delete(INDEX, id);
        }
        return DocumentOperation.index(INDEX, id, ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8));
    }

    private static boolean isTombstone(long i) {
        return (i / KEYS + i % KEYS) % 3 == 1;
    }

    private static void awaitAtLeastOne(LongSupplier count, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (count.getAsLong() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(count.getAsLong()).as(what).isGreaterThanOrEqualTo(1);
    }

    /** Lets the held bulk apply once the stream (about 2 s) is over, unless kes waits for it. */
    private static void releaseHeldBulkLater(Http http) throws Exception {
        Thread.sleep(8_000);
        http.send("PUT", "/" + INDEX + "/_settings", "{\"index\":{\"number_of_replicas\":0}}")
                .requireOk("drop the replica");
    }

    private static void assertEveryKeyEndsOnItsLastOperation(Http http) throws Exception {
        http.send("POST", "/" + INDEX + "/_refresh", null).requireOk("refresh");
        JsonNode hits = JSON.readTree(http.get("/" + INDEX + "/_search?size=" + (KEYS * 2)
                                + "&filter_path=hits.hits._id,hits.hits._source")
                        .requireOk("search")
                        .body())
                .path("hits")
                .path("hits");
        Map<String, Long> stored = new TreeMap<>();
        hits.forEach(hit -> stored.put(
                hit.path("_id").asText(), hit.path("_source").path("n").asLong()));
        Map<String, Long> expected = new TreeMap<>();
        for (long i = 0; i < RECORDS; i++) {
            String id = "k" + (i % KEYS);
            if (isTombstone(i)) {
                expected.remove(id);
            } else {
                expected.put(id, i);
            }
        }
        assertThat(expected.size())
                .as("some keys end on a tombstone, most on a value")
                .isBetween(1, KEYS - 1);
        assertThat(stored)
                .as("every key at its last operation, none taken back by the held copy")
                .isEqualTo(expected);
    }
}
