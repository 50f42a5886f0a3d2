package io.kes.connector.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.DocumentOperation;
import io.kes.connector.Durability;
import io.kes.connector.ElasticsearchSink;
import io.kes.connector.ElasticsearchSinkBuilder;
import io.kes.connector.FailedOperation;
import io.kes.connector.SinkSettings;
import io.kes.connector.bulk.EarlierWrites.TaggedBulks;
import io.kes.connector.cluster.SentTo;
import io.kes.connector.internal.Housekeeping;
import io.kes.connector.routing.IndexLayout;
import io.kes.connector.testing.CannedElasticsearch;
import io.kes.connector.testing.CannedElasticsearch.Answer;
import java.io.ByteArrayInputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.function.ThrowingRunnable;
import org.apache.http.HttpHost;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.ResponseException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The writer's order, retry and epoch guarantees, without a server: the transport is a fake whose
 * bulks the test answers when and how it chooses, and the timers and the clock move only when the
 * test says so. Each test is one guarantee of docs/order-and-durability.md.
 */
class BulkWriterTest {

    private Harness writer;

    @AfterEach
    void close() throws Exception {
        if (writer != null) {
            writer.close();
        }
    }

    @Test
    void anIdNeverOvertakesItsOwnEarlierWrite() throws Exception {
        writer = new Harness(b -> b.setBulkMaxDocs(1));

        writer.write("x", 1);
        writer.write("x", 2);

        assertThat(writer.sentBodies()).as("x=2 waits while x=1 is in flight").containsExactly("x=1");
        writer.answer(0, 200);
        assertThat(writer.sentBodies()).containsExactly("x=1", "x=2");
    }

    @Test
    void aRetriedWriteTakesTheLaterWritesOfItsIdInTheSameBulkWithIt() throws Exception {
        writer = new Harness(b -> b.setBulkMaxDocs(3));

        writer.write("x", 1);
        writer.write("y", 1);
        writer.write("x", 2);
        writer.answer(0, 429, 200, 200);
        writer.time.advance(Duration.ofSeconds(10));

        assertThat(writer.sentBodies())
                .as("x=2 succeeded, but would be overwritten by the retried x=1")
                .containsExactly("x=1 y=1 x=2", "x=1 x=2");
    }

    @Test
    void aLaterWriteOfAnIdWaitsWhileItsEarlierWriteWaitsForItsRetry() throws Exception {
        writer = new Harness(b -> b.setBulkMaxDocs(1));

        writer.write("x", 1);
        writer.answer(0, 429);
        writer.write("x", 2);

        assertThat(writer.sentBodies())
                .as("x=2 would be overwritten by the retried x=1")
                .containsExactly("x=1");
        writer.time.advance(Duration.ofSeconds(10));
        assertThat(writer.sentBodies()).containsExactly("x=1", "x=1");
        writer.answer(1, 200);
        assertThat(writer.sentBodies()).containsExactly("x=1", "x=1", "x=2");
    }

    @Test
    void aCheckpointWaitsForTheRetriesOfItsBulks() throws Exception {
        writer = new Harness(b -> b.setBulkMaxDocs(1));
        writer.write("a", 1);
        CompletableFuture<Void> checkpoint = writer.writer.checkpoint();
        writer.answer(0, 429);

        assertStaysPending(checkpoint, "a=1 is still to be retried");
        writer.time.advance(Duration.ofSeconds(10));
        writer.answer(1, 200);
        checkpoint.get(10, TimeUnit.SECONDS);
    }

    /**
     * A barrier used to send every buffer: at 96 shards and a checkpoint every 10 s, a tenth of the
     * bulks left part full for no other reason. The buffer keeps its documents' epoch instead.
     */
    @Test
    void aBarrierDoesNotCutAPartFullBufferAndItsCheckpointWaitsForTheBulkItBecomes() throws Exception {
        writer = new Harness(b -> b.setBulkMaxDocs(3));
        writer.write("a", 1);
        writer.write("b", 1);
        CompletableFuture<Void> checkpoint = writer.writer.checkpoint();

        assertThat(writer.sentBodies())
                .as("the barrier leaves the buffer to fill")
                .isEmpty();
        assertStaysPending(checkpoint, "a and b are still buffered");
        writer.write("c", 1);
        assertThat(writer.sentBodies())
                .as("full: one bulk with the document after the barrier")
                .containsExactly("a=1 b=1 c=1");
        assertStaysPending(checkpoint, "its bulk is not answered yet");
        writer.answer(0, 200, 200, 200);
        checkpoint.get(10, TimeUnit.SECONDS);
    }

    /**
     * Left to its node's room, a part-full buffer of a checkpoint could wait behind full bulks of
     * busier slots for as long as they keep coming, and its checkpoint with it.
     */
    @Test
    void aBufferOfABarrierQueuesForItsNodeALingerAfterTheBarrierAheadOfLaterFullBulks() throws Exception {
        writer = new Harness(b -> b.setBulkMaxDocs(3).setMaxInFlight(1).setBulkLinger(Duration.ofSeconds(1)));
        writer.write("s2-a", 1);
        writer.write("s2-b", 1);
        writer.write("s2-c", 1);
        writer.write("a", 1);
        CompletableFuture<Void> checkpoint = writer.writer.checkpoint();
        writer.time.advance(Duration.ofMillis(999));
        assertThat(writer.sentBodies())
                .as("a's node is busy, its buffer still fills")
                .containsExactly("s2-a=1 s2-b=1 s2-c=1");

        writer.time.advance(Duration.ofMillis(1));
        writer.write("s2-d", 1);
        writer.write("s2-e", 1);
        writer.write("s2-f", 1);
        writer.answer(0, 200, 200, 200);
        assertThat(writer.sentBodies())
                .as("queued at the barrier's linger, ahead of the full bulk after it")
                .containsExactly("s2-a=1 s2-b=1 s2-c=1", "a=1");
        writer.answer(1, 200);
        checkpoint.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aBufferStartedAfterABarrierDoesNotHoldThatCheckpoint() throws Exception {
        writer = new Harness(b -> b.setBulkMaxDocs(3));
        writer.write("a", 1);
        CompletableFuture<Void> first = writer.writer.checkpoint();
        writer.write("s1-b", 1);
        CompletableFuture<Void> second = writer.writer.checkpoint();
        writer.time.advance(Duration.ofMillis(5));
        assertThat(writer.sentBodies()).as("one part-full bulk per idle node").containsExactly("a=1");

        writer.answer(0, 200);
        first.get(10, TimeUnit.SECONDS);
        assertStaysPending(second, "s1-b is still buffered");
        writer.time.advance(Duration.ZERO);
        assertThat(writer.sentBodies()).containsExactly("a=1", "s1-b=1");
        writer.answer(1, 200);
        second.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aCheckpointWaitsForTheBulksBeforeItsBarrierAndNotForLaterOnes() throws Exception {
        List<CompletableFuture<Void>> checkpoints = twoCheckpointsOfOneBulkEach();
        CompletableFuture<Void> first = checkpoints.get(0);
        CompletableFuture<Void> second = checkpoints.get(1);
        writer.answer(0, 200);

        first.get(10, TimeUnit.SECONDS);
        assertStaysPending(second, "b's bulk is still in flight");
        writer.answer(1, 200);
        second.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aLaterCheckpointDoesNotCompleteBeforeAnEarlierOne() throws Exception {
        List<CompletableFuture<Void>> checkpoints = twoCheckpointsOfOneBulkEach();
        CompletableFuture<Void> first = checkpoints.get(0);
        CompletableFuture<Void> second = checkpoints.get(1);
        writer.answer(1, 200);

        assertStaysPending(second, "its own bulk is done, an earlier one is not");
        writer.answer(0, 200);
        first.get(10, TimeUnit.SECONDS);
        second.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aBulkWithoutAnswerIsSentAgainOnlyOnceElasticsearchNoLongerRunsIt() throws Exception {
        writer = new Harness(b -> b.setBulkMaxDocs(1));
        writer.runningTasks.add(Set.of("n1:7"));
        writer.runningTasks.add(Set.of("n1:7"));
        writer.runningTasks.add(Set.of());

        writer.write("x", 1);
        writer.fail(0, new SocketTimeoutException("60,000 milliseconds timeout"));
        writer.write("x", 2);
        writer.time.advance(Duration.ofMillis(AbandonedBulks.POLL_MILLIS));

        assertThat(writer.sentBodies()).as("the abandoned bulk still runs").containsExactly("x=1");
        writer.time.advance(Duration.ofSeconds(10));
        assertThat(writer.sentBodies()).as("sent again once gone; x=2 after it").containsExactly("x=1", "x=1");
        writer.answer(1, 200);
        assertThat(writer.sentBodies()).containsExactly("x=1", "x=1", "x=2");
    }

    /**
     * A proxy's or load balancer's 504 is no answer from Elasticsearch, which may still run the
     * bulk: sent again at once, the held copy could land after x=2 (issue 37).
     */
    @Test
    void aGatewayTimeoutIsWaitedForLikeNoAnswer() throws Exception {
        writer = new Harness(b -> b.setBulkMaxDocs(1));
        writer.runningTasks.add(Set.of("n1:7"));

        writer.write("x", 1);
        writer.fail(0, answered(504, "<html><body><h1>504 Gateway Time-out</h1></body></html>"));
        writer.write("x", 2);
        writer.time.advance(Duration.ofSeconds(10));

        assertThat(writer.listingsAskedAt)
                .as("asked whether Elasticsearch still runs it")
                .hasSize(2);
        assertThat(writer.sentBodies()).containsExactly("x=1", "x=1");
    }

    /** Elasticsearch's own 503 says the bulk is over: retried after its backoff, without a task listing. */
    @Test
    void elasticsearchsOwnUnavailableAnswerIsRetriedWithoutWaiting() throws Exception {
        writer = new Harness(b -> b.setBulkMaxDocs(1));

        writer.write("x", 1);
        writer.fail(
                0,
                answered(
                        503,
                        "{\"error\":{\"type\":\"cluster_block_exception\",\"reason\":\"no master\"},\"status\":503}"));
        writer.time.advance(Duration.ofSeconds(10));

        assertThat(writer.listingsAskedAt).isEmpty();
        assertThat(writer.sentBodies()).containsExactly("x=1", "x=1");
    }

    /** The REST client's exception for an answer {@code status} with {@code body}, from a real client. */
    private static Exception answered(int status, String body) throws Exception {
        try (CannedElasticsearch node = new CannedElasticsearch(path -> null, new Answer(status, body))) {
            node.client().performRequest(new Request("POST", "/_bulk"));
        } catch (ResponseException e) {
            return e;
        }
        throw new AssertionError("answered 2xx");
    }

    @Test
    void aBulkWithoutAnswerIsWaitedForAtTheNodeItWentToAsWellAsInTheCluster() throws Exception {
        writer = new Harness(b -> b.setBulkMaxDocs(1));
        writer.primary = new HttpHost("127.0.0.2", 9200);
        writer.runningTasks.add(Set.of("n2:7"));

        writer.write("x", 1);
        writer.fail(0, new SocketTimeoutException("60,000 milliseconds timeout"));
        writer.time.advance(Duration.ofSeconds(10));

        // a node cut off from the cluster is not in the cluster's listing, yet may apply the bulk later
        assertThat(writer.listingsAskedAt).hasSize(2).containsOnly(writer.primary);
        assertThat(writer.sentBodies()).containsExactly("x=1", "x=1");
    }

    @Test
    void aClosingWriterNamesTheNodesThatMayStillRunItsBulksAndNotThoseThatAnswered() throws Exception {
        writer = new Harness(b -> b.setBulkMaxDocs(1));
        HttpHost answered = new HttpHost("127.0.0.2", 9200);
        HttpHost silent = new HttpHost("127.0.0.3", 9200);
        writer.primary = answered;
        writer.write("x", 1);
        writer.answer(0, 200);
        writer.primary = silent;
        writer.write("y", 1);
        writer.fail(1, new SocketTimeoutException("60,000 milliseconds timeout"));
        writer.primary = null;
        writer.write("z", 1); // to the configured hosts: the cluster's listing covers them

        // the writer fails (its fence, say) while y waits for the silent node to say it no longer runs it
        assertThat(writer.writer.nodesThatMayRunItsBulks()).containsExactly(SentTo.address(silent));
    }

    @Test
    void aBulkWithoutAnswerWhoseIdsCannotRepeatIsSentAgainAtOnce() throws Exception {
        writer = new Harness(b -> b.setBulkMaxDocs(1));
        writer.runningTasks.add(Set.of("n1:7"));

        writer.writer.write(DocumentOperation.write(io.kes.connector.OpType.INDEX, "logs")
                .id("t-0-1")
                .idUnique(true)
                .source("{}".getBytes(StandardCharsets.UTF_8))
                .build());
        writer.fail(0, new SocketTimeoutException("timeout"));
        writer.time.advance(Duration.ofSeconds(10));

        assertThat(writer.sentBodies()).as("a late copy of it changes nothing").hasSize(2);
        assertThat(writer.runningTasks).as("no task listing").hasSize(1);
    }

    @Test
    void aDocumentRefusedForGoodGoesToTheFailureHandlerAndReleasesItsId() throws Exception {
        writer = new Harness(b -> b.setBulkMaxDocs(1));

        writer.write("x", 1);
        writer.write("x", 2);
        writer.answer(0, 400);

        assertThat(writer.failed).extracting(f -> f.operation().id()).containsExactly("x");
        assertThat(writer.sentBodies()).containsExactly("x=1", "x=2");
    }

    /**
     * Issue 27 item 12: pod addresses change with every node restart, so a long-running writer's
     * node budgets pile up unless the housekeeping at a checkpoint drops the idle ones.
     */
    @Test
    void theHousekeepingAtACheckpointForgetsTheBudgetsOfIdleNodes() throws Exception {
        writer = new Harness(b -> b.setBulkMaxDocs(1));
        writer.write("a", 1);
        writer.answer(0, 200);
        NodeBudgets budgets = writer.writer.budgets;
        assertThat(budgets.nodes()).isEqualTo(1);

        writer.time.advance(Duration.ofMillis(Housekeeping.FORGET_IDLE_TARGETS_MILLIS + 1));
        writer.writer.checkpoint();

        assertThat(budgets.nodes()).as("nothing queued or in flight: forgotten").isZero();
    }

    @Test
    void aBufferThatIsNotFullGoesOnceItsNodeIsIdleAndItCoalesced() throws Exception {
        writer = new Harness(b -> b.setBulkMaxDocs(100).setBulkCoalesce(Duration.ofMillis(5)));

        writer.write("a", 1);
        writer.write("b", 1);
        writer.time.advance(Duration.ofMillis(4));
        assertThat(writer.sentBodies()).as("still coalescing").isEmpty();

        writer.time.advance(Duration.ofMillis(1));
        assertThat(writer.sentBodies())
                .as("its node is idle: no need to wait out the linger")
                .containsExactly("a=1 b=1");
    }

    @Test
    void aBufferKeepsFillingWhileItsNodeIsBusyAndGoesWhenTheNodeHasRoom() throws Exception {
        writer = new Harness(b -> b.setBulkMaxDocs(100).setBulkLinger(Duration.ofSeconds(1)));
        writer.write("a", 1);
        writer.time.advance(Duration.ofMillis(5));

        writer.write("b", 1);
        writer.write("c", 1);
        writer.time.advance(Duration.ofMillis(500));
        assertThat(writer.sentBodies())
                .as("a's bulk is out: b and c keep filling")
                .containsExactly("a=1");

        writer.answer(0, 200);
        writer.time.advance(Duration.ZERO);
        assertThat(writer.sentBodies()).as("the node has room again").containsExactly("a=1", "b=1 c=1");
    }

    /**
     * When the load stops, the last buffers of a node's slots go one after another, each as the
     * bulk before it is answered (the node is idle again), not at their linger: nothing else is
     * left to make them look again.
     */
    @Test
    void theLastBuffersOfALoadGoAsTheirNodesBulksAreAnsweredNotAtTheirLinger() throws Exception {
        writer = new Harness(b -> b.setBulkMaxDocs(100).setBulkLinger(Duration.ofSeconds(1)));
        writer.write("a", 0);
        writer.time.advance(Duration.ofMillis(5));
        writer.write("s1-b", 1);
        writer.write("s2-c", 2);
        writer.time.advance(Duration.ofMillis(20));
        assertThat(writer.sentBodies()).as("the node is busy with a's bulk").containsExactly("a=0");

        writer.answer(0, 200);
        writer.time.advance(Duration.ZERO);
        assertThat(writer.sentBodies()).containsExactly("a=0", "s1-b=1");

        writer.answer(1, 200);
        writer.time.advance(Duration.ZERO);
        assertThat(writer.sentBodies()).containsExactly("a=0", "s1-b=1", "s2-c=2");
    }

    @Test
    void aBufferGoesAfterTheLingerWhileItsNodeHasAFreePlaceButIsNotIdle() throws Exception {
        writer = new Harness(
                b -> b.setBulkMaxDocs(100).setBulkLinger(Duration.ofMillis(50)).setMaxInFlight(2));
        writer.write("a", 1);
        writer.time.advance(Duration.ofMillis(5));

        writer.write("b", 1);
        writer.time.advance(Duration.ofMillis(49));
        assertThat(writer.sentBodies()).containsExactly("a=1");
        writer.time.advance(Duration.ofMillis(1));

        assertThat(writer.sentBodies())
                .as("lingered: one free place of two is enough")
                .containsExactly("a=1", "b=1");
    }

    /**
     * Under full load every node's budget is full most of the time and a buffer starts after every
     * bulk cut: a timer per buffer (its wait, then its linger) was about 200 timers a second per
     * writer, each a hop to Flink's timer thread and a mail back, that fired to find no room. The
     * departures arm one timer, for the earliest moment any buffer could go; the end of a bulk looks
     * at the others.
     */
    @Test
    void buffersWaitingForTheirNodesRoomShareOneTimer() throws Exception {
        writer = new Harness(b -> b.setBulkMaxDocs(2).setMaxInFlight(1).setBulkLinger(Duration.ofSeconds(1)));
        writer.write("a", 1);
        writer.write("b", 1); // full: its node's only place is taken
        long before = writer.time.registered;

        for (int i = 0; i < 30; i++) {
            writer.write("s" + (i % 3) + "-" + i, i); // buffers start and fill in every slot
            writer.time.advance(Duration.ofMillis(10));
        }

        assertThat(writer.time.registered - before)
                .as("timers armed while 15 buffers started behind a full budget")
                .isEqualTo(1);
        assertThat(writer.sentBodies()).hasSize(1);
    }

    /**
     * A node that hangs (a stalled node) keeps its slots' buffers filling instead of cutting them into
     * small bulks that queue behind its hanging ones, but no longer than {@code bulk.linger}: left to
     * room alone a buffer waited for as long as the node's budget stayed full, and its documents
     * with it (for ever without checkpoints, while other slots' full bulks kept the budget full).
     */
    @Test
    void aBufferWhoseNodeHasNoFreePlaceKeepsFillingUntilTheLingerThenQueues() throws Exception {
        writer = new Harness(
                b -> b.setBulkMaxDocs(100).setBulkLinger(Duration.ofMillis(50)).setMaxInFlight(1));
        writer.write("a", 1);
        writer.time.advance(Duration.ofMillis(5));

        writer.write("b", 1);
        writer.time.advance(Duration.ofMillis(49));
        writer.write("c", 1);
        assertThat(writer.sentBodies()).as("a hangs on its node").containsExactly("a=1");
        assertThat(writer.writer.budgets.queuedBulks())
                .as("not cut into a small bulk that queues")
                .isZero();

        writer.time.advance(Duration.ofMillis(1));
        assertThat(writer.writer.budgets.queuedBulks())
                .as("a linger after its first document it queues, whatever the node's room")
                .isEqualTo(1);
        writer.write("d", 1);

        writer.answer(0, 200);
        assertThat(writer.sentBodies()).containsExactly("a=1", "b=1 c=1");
        writer.answer(1, 200);
        writer.time.advance(Duration.ofMillis(50));
        assertThat(writer.sentBodies()).containsExactly("a=1", "b=1 c=1", "d=1");
    }

    /**
     * Without {@code bulk.coalesce}, a buffer that is not full waits half its index's refresh
     * interval (the harness's index has Elasticsearch's default, 1 s) even on an idle node: its
     * documents would not be searchable sooner, and the bulk carries more of them.
     */
    @Test
    void aBufferThatIsNotFullWaitsHalfItsIndexsRefreshIntervalThenGoesOnceItsNodeHasRoom() throws Exception {
        writer = Harness.withTheDefaultDeparture(b -> b.setBulkMaxDocs(100));
        writer.write("a", 1);
        writer.time.advance(Duration.ofMillis(300));
        writer.write("b", 1);
        writer.time.advance(Duration.ofMillis(199));
        assertThat(writer.sentBodies())
                .as("its node is idle, but a refresh would not show it sooner")
                .isEmpty();

        writer.time.advance(Duration.ofMillis(1));
        assertThat(writer.sentBodies()).containsExactly("a=1 b=1");
    }

    /** Without {@code bulk.coalesce}, a buffer whose node has no free place keeps filling past its wait, as with it. */
    @Test
    void withTheDefaultDepartureABufferWhoseNodeHasNoFreePlaceKeepsFilling() throws Exception {
        writer = Harness.withTheDefaultDeparture(b -> b.setBulkMaxDocs(100).setMaxInFlight(1));
        writer.write("a", 1);
        writer.time.advance(Duration.ofMillis(500));
        writer.write("b", 1);
        writer.time.advance(Duration.ofSeconds(5));
        writer.write("c", 1);
        assertThat(writer.sentBodies()).as("a hangs on its node").containsExactly("a=1");

        writer.answer(0, 200);
        writer.time.advance(Duration.ZERO);
        assertThat(writer.sentBodies()).containsExactly("a=1", "b=1 c=1");
    }

    /** Writes a, closes an epoch (a checkpoint barrier), writes b, closes another: one bulk in each, both in flight. */
    private List<CompletableFuture<Void>> twoCheckpointsOfOneBulkEach() throws Exception {
        writer = new Harness(b -> b.setBulkMaxDocs(1));
        writer.write("a", 1);
        CompletableFuture<Void> first = writer.writer.checkpoint();
        writer.write("b", 1);
        return List.of(first, writer.writer.checkpoint());
    }

    /** Keyed, the router predicted the document: the writer buffers it there and does not predict it again. */
    @Test
    void aDocumentWithItsRoutersPredictionIsNotPredictedAgain() throws Exception {
        writer = new Harness(b -> b.setBulkMaxDocs(2));
        writer.writer.write(
                DocumentOperation.index("logs", "a", "{\"v\":1}".getBytes(StandardCharsets.UTF_8)),
                writer.layout.shard(0));
        writer.write("b", 2);

        assertThat(writer.predicted)
                .as("only the document without a prediction")
                .isEqualTo(1);
        assertThat(writer.sentBodies()).containsExactly("a=1 b=2");
    }

    /** Epochs are completed on the finisher's thread: give it time to do it wrongly. */
    private static void assertStaysPending(CompletableFuture<Void> checkpoint, String why) throws InterruptedException {
        Thread.sleep(300);
        assertThat(checkpoint).as(why).isNotDone();
    }

    /** A writer on fakes: every bulk the writer sends is kept, in order, for the test to answer. */
    private static final class Harness {

        final FakeMailbox mailbox = new FakeMailbox();
        final FakeTime time = new FakeTime();
        final AtomicLong nanos = new AtomicLong();
        final List<BulkInFlight> batches = new ArrayList<>();
        final List<BulkBody> bodies = new ArrayList<>();
        /** Each body as it was sent, as {@code id=v id=v}: an answered body's array may be filled again. */
        final List<String> sentTexts = new ArrayList<>();
        /** What the task listing answers, in turn; no tasks once used up. */
        final Deque<Set<String>> runningTasks = new ArrayDeque<>();
        /** The node of the logs shard's primary (null: the configured hosts), and the nodes each listing asked. */
        HttpHost primary;

        final List<HttpHost> listingsAskedAt = new ArrayList<>();

        final List<FailedOperation> failed = new ArrayList<>();
        /** Documents the writer predicted itself. */
        int predicted;
        /** The index's three shards on one node: ids starting "s1-" and "s2-" go to shards 1 and 2, the others to 0. */
        final IndexLayout layout = IndexLayout.of("logs", "uuid", new long[] {1, 1, 1}, null);

        final BulkWriter writer;
        private BulkTransport.Outcomes outcomes;

        /** With {@code bulk.coalesce: 5ms}, the eager rule, which the guarantees here were written against. */
        Harness(UnaryOperator<ElasticsearchSinkBuilder> options) throws Exception {
            this(options.apply(base().setBulkCoalesce(Duration.ofMillis(5)))
                    .build()
                    .settings());
        }

        /** With the options as given: no {@code bulk.coalesce} unless they set one, so the departure waits on the index's refresh. */
        static Harness withTheDefaultDeparture(UnaryOperator<ElasticsearchSinkBuilder> options) throws Exception {
            return new Harness(options.apply(base()).build().settings());
        }

        private static ElasticsearchSinkBuilder base() {
            return ElasticsearchSink.builder()
                    .setHosts("http://127.0.0.1:9200")
                    .setDurability(Durability.REQUEST)
                    .setBulkLinger(Duration.ofHours(1));
        }

        private Harness(SinkSettings settings) throws Exception {
            WriterRouting predictions = new FixedRouting(op -> {
                predicted++;
                return layout.shard(op.id().startsWith("s1-") ? 1 : op.id().startsWith("s2-") ? 2 : 0);
            });
            writer = new BulkWriter(
                    settings,
                    predictions,
                    metrics -> new Transport(),
                    new TaskThread(new TaskMailbox(mailbox), time, nanos::get),
                    new BulkWriter.Reporting(new UnregisteredMetricsGroup(), 0, failed::addAll, "kes/test"),
                    null);
        }

        void write(String id, int value) throws Exception {
            writer.write(
                    DocumentOperation.index("logs", id, ("{\"v\":" + value + "}").getBytes(StandardCharsets.UTF_8)));
        }

        /** Each body sent so far, as {@code id=v id=v}. */
        List<String> sentBodies() {
            return List.copyOf(sentTexts);
        }

        private static String describe(BulkBody body) {
            return java.util.stream.IntStream.range(0, body.itemCount())
                    .mapToObj(body::document)
                    .map(op -> op.id() + "=" + new String(op.source(), StandardCharsets.UTF_8).replaceAll("\\D", ""))
                    .collect(Collectors.joining(" "));
        }

        /** Answers the {@code n}th body sent, one status per item. */
        void answer(int n, int... statuses) throws Exception {
            StringBuilder json = new StringBuilder("{\"items\":[");
            for (int i = 0; i < statuses.length; i++) {
                json.append(i == 0 ? "" : ",")
                        .append("{\"index\":{\"_index\":\"logs\",\"status\":")
                        .append(statuses[i])
                        .append(",\"_primary_term\":1");
                if (statuses[i] >= 300) {
                    json.append(",\"error\":{\"type\":\"")
                            .append(statuses[i] == 429 ? "es_rejected_execution_exception" : "mapper_parsing_exception")
                            .append("\",\"reason\":\"test\"}");
                }
                json.append("}}");
            }
            json.append("]}");
            BulkResponse response = BulkResponse.parse(
                    new ByteArrayInputStream(json.toString().getBytes(StandardCharsets.UTF_8)), statuses.length);
            outcomes.onResponse(batches.get(n), bodies.get(n), response);
            mailbox.runPending();
        }

        void fail(int n, Exception failure) throws Exception {
            outcomes.onRequestFailure(batches.get(n), bodies.get(n), failure);
            mailbox.runPending();
        }

        void close() throws Exception {
            writer.close();
        }

        private final class Transport implements BulkTransport {
            @Override
            public SentTo dispatch(BulkInFlight batch, Outcomes outcomes) {
                Harness.this.outcomes = outcomes;
                batches.add(batch);
                bodies.add(batch.body);
                sentTexts.add(describe(batch.body));
                HttpHost node = nodeOf(batch.slot); // as BulkDispatcher decides it
                return node == null ? null : SentTo.address(node);
            }

            @Override
            public HttpHost nodeOf(Slot slot) {
                return primary;
            }

            @Override
            public void listTaggedBulks(SentTo node, Consumer<TaggedBulks> listed, IntConsumer failedWithStatus) {
                listingsAskedAt.add(node == null ? null : node.address());
                Set<String> running = runningTasks.isEmpty() ? Set.of() : runningTasks.poll();
                mailbox.execute(() -> listed.accept(new TaggedBulks(running, true)), "listed");
            }

            @Override
            public void close() {}
        }

        /** Timers that fire only when the test advances the time, on the test's thread (the task thread here). */
        private final class FakeTime implements ProcessingTimeService {
            /** One registered timer; {@code order} keeps timers due at the same moment in registration order. */
            private record Timer(long at, long order, ProcessingTimeCallback callback) {}

            private long now;
            private long registered;
            private final PriorityQueue<Timer> due =
                    new PriorityQueue<>(Comparator.comparingLong(Timer::at).thenComparingLong(Timer::order));

            @Override
            public long getCurrentProcessingTime() {
                return now;
            }

            @Override
            public ScheduledFuture<?> registerTimer(long timestamp, ProcessingTimeCallback callback) {
                due.add(new Timer(timestamp, registered++, callback));
                return null; // the writer never cancels a timer
            }

            void advance(Duration by) throws Exception {
                long until = now + by.toMillis();
                while (!due.isEmpty() && due.peek().at() <= until) {
                    Timer next = due.poll();
                    now = Math.max(now, next.at());
                    nanos.set(TimeUnit.MILLISECONDS.toNanos(now));
                    next.callback().onProcessingTime(next.at());
                    mailbox.runPending();
                }
                now = until;
                nanos.set(TimeUnit.MILLISECONDS.toNanos(now));
            }
        }
    }

    /** The task's mailbox: mails run when the test (or the writer's yield) says so; other threads may post. */
    private static final class FakeMailbox implements MailboxExecutor {
        private final LinkedBlockingDeque<ThrowingRunnable<? extends Exception>> mails = new LinkedBlockingDeque<>();

        @Override
        public void execute(
                MailOptions options,
                ThrowingRunnable<? extends Exception> command,
                String description,
                Object... args) {
            mails.add(command);
        }

        @Override
        public void yield() throws InterruptedException {
            ThrowingRunnable<? extends Exception> mail = mails.poll(10, TimeUnit.SECONDS);
            if (mail == null) {
                throw new IllegalStateException("the writer waits for an answer no test gave");
            }
            run(mail);
        }

        @Override
        public boolean tryYield() {
            ThrowingRunnable<? extends Exception> mail = mails.poll();
            if (mail != null) {
                run(mail);
            }
            return mail != null;
        }

        @Override
        public boolean shouldInterrupt() {
            return false;
        }

        void runPending() {
            while (tryYield()) {
                // run every mail posted so far, and those they post
            }
        }

        private static void run(ThrowingRunnable<? extends Exception> mail) {
            try {
                mail.run();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
