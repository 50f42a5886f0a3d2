package io.kes.connector.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.ElasticsearchSinkOptions;
import io.kes.connector.SinkSettings;
import io.kes.connector.cluster.SentTo;
import io.kes.connector.testing.CannedElasticsearch;
import io.kes.connector.testing.CannedElasticsearch.Answer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.configuration.Configuration;
import org.apache.http.HttpHost;
import org.junit.jupiter.api.Test;

/**
 * The wait of an opening writer for the bulks an earlier run left in Elasticsearch, without a
 * server: each listing answers what the test lists, in turn (null: no answer), and the clock moves
 * only when the wait sleeps.
 */
class EarlierWritesTest {

    private static final String TAG = "kes/job";
    private final AtomicLong nanos = new AtomicLong();

    @Test
    void aNodeTheFailedRunLeftBulksOnIsWaitedForUntilItAnswersAndTheyEnd() throws Exception {
        // frozen and out of the cluster: the cluster's listing does not show its bulks
        Answers cluster = answers(Set.of());
        Answers node = answers(null, null, Set.of("n3:12", "n3:13"), Set.of("n3:13"), Set.of());

        boolean gone =
                EarlierWrites.awaitGone(sources(cluster, node), TAG, Duration.ofMinutes(5), nanos::get, this::sleep);

        assertThat(gone).isTrue();
        assertThat(node.left()).as("asked until its bulks ended").isZero();
    }

    @Test
    void bulksThatSiblingWritersStartWhileItWaitsAreNotWaitedFor() throws Exception {
        Answers cluster = answers(Set.of("n1:1"), Set.of("n1:1", "n1:2"), Set.of("n1:2", "n1:3"));

        boolean gone = EarlierWrites.awaitGone(
                Map.of("the cluster", cluster), TAG, Duration.ofMinutes(5), nanos::get, this::sleep);

        assertThat(gone).isTrue();
        assertThat(cluster.left()).isZero();
    }

    @Test
    void aNodeThatNeverAnswersIsWaitedForUpToTheLimitThenTheWriterWritesAnyway() throws Exception {
        Answers cluster = answers(Set.of());
        Answers node = answers((Set<String>) null); // never answers

        boolean gone =
                EarlierWrites.awaitGone(sources(cluster, node), TAG, Duration.ofSeconds(30), nanos::get, this::sleep);

        assertThat(gone).isFalse();
        assertThat(nanos.get()).isGreaterThan(Duration.ofSeconds(30).toNanos());
    }

    @Test
    void nothingRunningAndEveryNodeAnsweringMeansNoWaitAtAll() throws Exception {
        boolean gone = EarlierWrites.awaitGone(
                sources(answers(Set.of()), answers(Set.of())), TAG, Duration.ofMinutes(5), nanos::get, this::sleep);

        assertThat(gone).isTrue();
        assertThat(nanos.get()).isZero();
    }

    @Test
    void aClosedWritersNodesAreKeptForTheNextWriterOfTheSameJobOnly() {
        SentTo node = new SentTo(new HttpHost("127.0.0.3", 9200), "n3", "e3");
        EarlierWrites.leftOn("kes/this-test", Set.of(node));
        assertThat(EarlierWrites.leftOn("kes/this-test")).containsExactly(node);
        assertThat(EarlierWrites.leftOn("kes/another-job")).isEmpty();
    }

    /**
     * Issue 37 item 6: the node a closed writer left a bulk on came back as a new process under
     * another address, while its old one accepts connections and never answers. The cluster,
     * read through the configured host, lists its id with another ephemeral id elsewhere: that
     * node runs none of the bulks sent to the old address, and the opening writer need not wait
     * for it; the same process listed (cut off from kes only) is waited for as before.
     */
    @Test
    void aSilentNodeTheClusterListsAsANewProcessElsewhereRunsNoneOfTheBulksLeftOnIt() throws Exception {
        assertThat(openingWriterWaitsFor("e2", Duration.ofSeconds(20)))
                .as("restarted elsewhere: no wait for its old address")
                .isLessThan(Duration.ofSeconds(10));
        assertThat(openingWriterWaitsFor("e1", Duration.ofSeconds(3)))
                .as("the same process: its silence may hide the bulk")
                .isGreaterThanOrEqualTo(Duration.ofSeconds(3));
    }

    /** How long an opening writer waits for a silent node whose id the cluster lists with {@code ephemeralIdNow}. */
    private static Duration openingWriterWaitsFor(String ephemeralIdNow, Duration maxWait) throws Exception {
        String tag = "kes/silent-node-" + ephemeralIdNow;
        // _nodes/http: the node now publishes the configured host's address, not the silent one
        java.util.concurrent.atomic.AtomicReference<String> published =
                new java.util.concurrent.atomic.AtomicReference<>();
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                CannedElasticsearch cluster = new CannedElasticsearch(
                        path -> switch (path) {
                            case "/_tasks" -> Answer.ok("{\"tasks\":[]}");
                            case "/_nodes/http" ->
                                Answer.ok("{\"nodes\":{\"n1\":{\"http\":{\"publish_address\":\"" + published.get()
                                        + "\"}}}}");
                            case "/_cluster/state/nodes" ->
                                Answer.ok("{\"nodes\":{\"n1\":{\"ephemeral_id\":\"" + ephemeralIdNow + "\"}}}");
                            default -> null;
                        },
                        new Answer(404, "{}"))) {
            HttpHost configured = cluster.client().getNodes().get(0).getHost();
            published.set(configured.toHostString());
            HttpHost old = new HttpHost("127.0.0.1", silent.getLocalPort(), "http");
            EarlierWrites.leftOn(tag, Set.of(new SentTo(old, "n1", "e1")));
            Configuration conf = new Configuration();
            conf.setString(ElasticsearchSinkOptions.HOSTS.key(), configured.toURI());
            conf.setString(ElasticsearchSinkOptions.SOCKET_TIMEOUT.key(), "500ms");
            long started = System.nanoTime();
            EarlierWrites.awaitGone(cluster.client(), SinkSettings.from(conf), tag, maxWait);
            return Duration.ofNanos(System.nanoTime() - started);
        }
    }

    /**
     * Issue 66 item 4: a node asked for its own tasks through a load balancer (or any proxy that
     * picks a node) answers for whichever node took the request: trusted, that answer ended the
     * wait for the node the bulk went to while it may still hold it. The listing names the node
     * that answered (its own listing task); only the node the bulk went to counts.
     */
    @Test
    void aNodesOwnListingCountsOnlyWhenThatNodeAnswersIt() throws Exception {
        assertThat(openingWriterWaitsForAListingAnsweredBy("n1", Duration.ofSeconds(20)))
                .as("the node the bulk went to answered: no bulk of the job runs there")
                .isLessThan(Duration.ofSeconds(10));
        assertThat(openingWriterWaitsForAListingAnsweredBy("n2", Duration.ofSeconds(3)))
                .as("another node answered for it: says nothing about n1")
                .isGreaterThanOrEqualTo(Duration.ofSeconds(3));
    }

    /**
     * Issue 66 item 4: a node that comes back at the same address under a new node id (its data
     * path wiped) answers there as another node. The process the bulk reached has let go of that
     * address, so it has ended; the one listening there now answers for itself: its listing counts,
     * and the wait does not run to its limit.
     */
    @Test
    void aNodeBackAtTheSameAddressUnderANewIdAnswersForThatAddress() throws Exception {
        String tag = "kes/back-under-new-id";
        AtomicReference<String> published = new AtomicReference<>();
        String listing = "{\"tasks\":[{\"node\":\"n7\",\"id\":7,\"action\":"
                + "\"cluster:monitor/tasks/lists\",\"headers\":{}}]}";
        try (CannedElasticsearch node = new CannedElasticsearch(
                path -> switch (path) {
                    case "/_tasks" -> Answer.ok(listing);
                    case "/_nodes/http" ->
                        Answer.ok("{\"nodes\":{\"n7\":{\"http\":{\"publish_address\":\"" + published.get() + "\"}}}}");
                    case "/_cluster/state/nodes" -> Answer.ok("{\"nodes\":{\"n7\":{\"ephemeral_id\":\"e7\"}}}");
                    default -> null;
                },
                new Answer(404, "{}"))) {
            HttpHost address = node.client().getNodes().get(0).getHost();
            published.set(address.toHostString());
            EarlierWrites.leftOn(tag, Set.of(new SentTo(address, "n1", "e1")));
            Configuration conf = new Configuration();
            conf.setString(ElasticsearchSinkOptions.HOSTS.key(), address.toURI());
            conf.setString(ElasticsearchSinkOptions.SOCKET_TIMEOUT.key(), "500ms");
            long started = System.nanoTime();
            EarlierWrites.awaitGone(node.client(), SinkSettings.from(conf), tag, Duration.ofSeconds(20));
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
        }
    }

    /** How long an opening writer waits for bulks left on node n1 when its address's listing is answered by {@code answering}. */
    private static Duration openingWriterWaitsForAListingAnsweredBy(String answering, Duration maxWait)
            throws Exception {
        String tag = "kes/balanced-" + answering;
        String listing = "{\"tasks\":[{\"node\":\"" + answering + "\",\"id\":7,\"action\":"
                + "\"cluster:monitor/tasks/lists\",\"headers\":{}}]}";
        try (CannedElasticsearch balancer = new CannedElasticsearch(
                path -> path.equals("/_tasks") ? Answer.ok(listing) : null, new Answer(404, "{}"))) {
            HttpHost address = balancer.client().getNodes().get(0).getHost();
            EarlierWrites.leftOn(tag, Set.of(new SentTo(address, "n1", "e1")));
            Configuration conf = new Configuration();
            conf.setString(ElasticsearchSinkOptions.HOSTS.key(), address.toURI());
            conf.setString(ElasticsearchSinkOptions.SOCKET_TIMEOUT.key(), "500ms");
            long started = System.nanoTime();
            EarlierWrites.awaitGone(balancer.client(), SinkSettings.from(conf), tag, maxWait);
            return Duration.ofNanos(System.nanoTime() - started);
        }
    }

    private Map<String, EarlierWrites.Listing> sources(Answers cluster, Answers node) {
        Map<String, EarlierWrites.Listing> sources = new LinkedHashMap<>();
        sources.put("the cluster", cluster);
        sources.put("127.0.0.3:9200", node);
        return sources;
    }

    private void sleep(long millis) {
        nanos.addAndGet(millis * 1_000_000);
    }

    /** A listing's answers in turn (null: no answer); once used up, the last one again. */
    @SafeVarargs
    private static Answers answers(Set<String>... inTurn) {
        return new Answers(Arrays.asList(inTurn));
    }

    private static final class Answers implements EarlierWrites.Listing {
        private final List<Set<String>> inTurn;
        private int asked;

        Answers(List<Set<String>> inTurn) {
            this.inTurn = inTurn;
        }

        @Override
        public Set<String> running() {
            return inTurn.get(Math.min(asked++, inTurn.size() - 1));
        }

        int left() {
            return Math.max(0, inTurn.size() - asked);
        }
    }
}
