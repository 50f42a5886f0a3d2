package io.kes.connector.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.testing.CannedElasticsearch;
import io.kes.connector.testing.CannedElasticsearch.Answer;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.http.HttpHost;
import org.elasticsearch.client.RestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Where bulks of a primary go, on canned answers in the shapes Elasticsearch gives: one node, the
 * canned server itself, whose listing and health the test changes between refreshes (each index
 * seen for the first time refreshes the locations at once).
 */
class PrimaryNodesTest {

    private volatile boolean listed = true;
    private volatile boolean healthy = false;
    private final AtomicInteger healthProbes = new AtomicInteger();
    private final AtomicInteger routingReads = new AtomicInteger();

    private CannedElasticsearch es;
    private RestClient client;
    private HttpHost node;
    /** The ephemeral id the cluster state lists for n1: another one after each start of the node. */
    private volatile String ephemeralId = "e1";

    /** The address {@code _nodes/http} publishes for the node holding the primaries; the canned server itself unless a test says otherwise. */
    private volatile HttpHost published;

    @BeforeEach
    void start() throws IOException {
        es = new CannedElasticsearch(
                path -> {
                    if (path.equals("/_nodes/http")) {
                        return Answer.ok(
                                listed
                                        ? "{\"nodes\":{\"n1\":{\"http\":{\"publish_address\":\""
                                                + published.toHostString() + "\"}}}}"
                                        : "{\"nodes\":{}}");
                    }
                    if (path.equals("/_cluster/state/nodes")) {
                        return Answer.ok(nodes());
                    }
                    if (path.startsWith("/_cluster/state/routing_table,nodes/")) {
                        routingReads.incrementAndGet();
                        String shards =
                                "{\"shards\":{\"0\":[{\"primary\":true,\"node\":\"n1\",\"state\":\"STARTED\"}]}}";
                        StringBuilder indices = new StringBuilder();
                        for (int i = 1; i <= 12; i++) {
                            indices.append(i == 1 ? "" : ",")
                                    .append("\"i")
                                    .append(i)
                                    .append("\":")
                                    .append(shards);
                        }
                        return Answer.ok("{\"routing_table\":{\"indices\":{" + indices + "}}," + nodes().substring(1));
                    }
                    if (path.equals("/_cluster/health")) {
                        healthProbes.incrementAndGet();
                        return healthy ? Answer.ok("{}") : new Answer(500, "{}");
                    }
                    return null;
                },
                new Answer(404, "{}"));
        client = es.client();
        node = client.getNodes().get(0).getHost();
        published = node;
    }

    @AfterEach
    void stop() throws IOException {
        es.close();
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    /**
     * Issue 27 item 12: pod addresses change with every node restart, so what kes knows of a
     * node's reachability is dropped once the node is no longer listed: it does not pile up, and
     * a node that comes back at the address is asked again instead of staying unreachable.
     */
    @Test
    void aNodeThatLeftIsAskedAgainWhetherItAnswersWhenItsAddressComesBack() throws Exception {
        try (PrimaryNodes primaries = new PrimaryNodes(client, PrimaryNodesTest::clientOf, "test-primaries")) {
            assertThat(primaries.primaryOf("i1", 0)).isNull();
            await(() -> healthProbes.get() == 1, "the node was asked whether it answers");
            assertThat(primaries.primaryOf("i1", 0)).as("it did not answer").isNull();

            listed = false;
            primaries.primaryOf("i2", 0);
            await(() -> routingReads.get() == 2, "a refresh without the node");

            listed = true;
            healthy = true;
            primaries.primaryOf("i3", 0);
            await(() -> node.equals(primaries.primaryOf("i3", 0)), "bulks of i3 go to the node that is back");
        }
    }

    /**
     * A node whose published address cannot be reached is asked again every few refreshes. The
     * shared client has by then marked it dead and would hand the question to a configured host,
     * whose answer says nothing of that node: bulks would be aimed at it again, each waiting for a
     * connection that never comes. The question goes to that node alone.
     */
    @Test
    void aNodeIsAskedWhetherItAnswersByItselfNotByAConfiguredHostAfterItFailedOnce() throws Exception {
        healthy = true; // the configured host answers
        published = new HttpHost("127.0.0.1", closedPort(), "http");
        try (PrimaryNodes primaries = new PrimaryNodes(client, PrimaryNodesTest::clientOf, "test-primaries")) {
            // every index seen for the first time refreshes at once; the 10th refresh asks again
            for (int i = 1; i <= 11; i++) {
                int reads = i;
                primaries.primaryOf("i" + i, 0);
                await(() -> routingReads.get() == reads, "refresh " + reads);
            }
            assertThat(primaries.primaryOf("i10", 0))
                    .as("the node refused the connection when asked again")
                    .isNull();
            assertThat(primaries.primaryOf("i11", 0)).isNull();
        }
    }

    /** The {@code nodes} of a cluster state read: n1's ephemeral id, while it is listed. */
    private String nodes() {
        return listed ? "{\"nodes\":{\"n1\":{\"ephemeral_id\":\"" + ephemeralId + "\"}}}" : "{\"nodes\":{}}";
    }

    /**
     * Issue 37 item 6: a bulk records which process of which node it reached (the last refresh's
     * read), so that a wait for it, when that address falls silent, can learn from the cluster
     * that the node came back as a new process under another address and runs none of it.
     */
    @Test
    void aNodeThatCameBackAsANewProcessUnderAnotherAddressIsGoneForTheBulksSentToItsOldOne() throws Exception {
        healthy = true;
        try (PrimaryNodes primaries = new PrimaryNodes(client, PrimaryNodesTest::clientOf, "test-primaries")) {
            primaries.primaryOf("i1", 0);
            await(() -> node.equals(primaries.primaryOf("i1", 0)), "bulks of i1 go to the node");
            SentTo sent = primaries.sentTo(node);
            assertThat(sent).isEqualTo(new SentTo(node, "n1", "e1"));

            assertThat(askWhetherGone(primaries, sent)).as("the same process").isFalse();

            ephemeralId = "e2"; // restarted, at the same address: it may be the process that got the bulk
            assertThat(askWhetherGone(primaries, sent))
                    .as("restarted where the bulk went")
                    .isFalse();

            published = new HttpHost("127.0.0.1", closedPort(), "http"); // ... and now listens elsewhere
            assertThat(askWhetherGone(primaries, sent))
                    .as("a new process, elsewhere")
                    .isTrue();

            listed = false;
            assertThat(askWhetherGone(primaries, sent))
                    .as("not listed: it may be frozen or cut off and still run the bulk")
                    .isFalse();
            assertThat(askWhetherGone(primaries, SentTo.address(node)))
                    .as("no node was known at that address")
                    .isFalse();
        }
    }

    private static boolean askWhetherGone(PrimaryNodes primaries, SentTo sent) throws Exception {
        java.util.concurrent.CompletableFuture<Boolean> answer = new java.util.concurrent.CompletableFuture<>();
        primaries.askWhetherGone(sent, answer::complete);
        return answer.get(5, java.util.concurrent.TimeUnit.SECONDS);
    }

    private static int closedPort() throws IOException {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static RestClient clientOf(HttpHost node) {
        return RestClient.builder(node).build();
    }
}
