package io.kes.connector.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kes.connector.FailureHandler;
import io.kes.connector.fence.Epochs.Epoch;
import io.kes.connector.internal.Backoff;
import io.kes.connector.routing.IndexLayout;
import io.kes.connector.testing.CannedElasticsearch;
import io.kes.connector.testing.CannedElasticsearch.Answer;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;
import org.elasticsearch.client.RestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fence's decisions on canned answers (the shapes Elasticsearch gives; a fake is fine for the
 * decision, the real node's behaviour is proven by the ITs): an index whose translog syncs less
 * often than fence_sync_wait is flushed, and the flush must have reached every written primary.
 */
class CheckpointFenceTest {

    private static final String METADATA =
            "{\"metadata\":{\"indices\":{\"idx\":{\"settings\":{\"index\":{\"number_of_shards\":\"2\","
                    + "\"uuid\":\"u1\",\"translog\":{\"sync_interval\":\"30s\"}}},\"routing_num_shards\":2,\"primary_terms\":{\"0\":1,\"1\":1}}}}}";

    private final Map<String, String> answers = new ConcurrentHashMap<>();
    /** Answers that replace {@link #answers} once a {@code _flush} was asked for. */
    private final Map<String, String> afterFlush = new ConcurrentHashMap<>();

    private volatile boolean flushed;
    private final java.util.concurrent.atomic.AtomicInteger flushes = new java.util.concurrent.atomic.AtomicInteger();
    /** {@code _stats} reads before the first {@code _flush}. */
    private final java.util.concurrent.atomic.AtomicInteger statsBeforeFlush =
            new java.util.concurrent.atomic.AtomicInteger();

    private CannedElasticsearch es;
    private RestClient client;

    @BeforeEach
    void start() throws IOException {
        es = new CannedElasticsearch(
                path -> {
                    if (path.endsWith("/_flush")) {
                        flushed = true;
                        flushes.incrementAndGet();
                    }
                    if (!flushed && path.contains("/_stats")) {
                        statsBeforeFlush.incrementAndGet();
                    }
                    return (flushed && afterFlush.keySet().stream().anyMatch(path::endsWith) ? afterFlush : answers)
                            .entrySet().stream()
                                    .filter(e -> path.endsWith(e.getKey()))
                                    .map(e -> Answer.ok(e.getValue()))
                                    .findFirst()
                                    .orElse(null);
                },
                new Answer(404, "{}"));
        client = es.client();
        answers.put("/_cluster/state/metadata/idx", METADATA);
    }

    @AfterEach
    void stop() throws IOException {
        es.close();
    }

    private static String stats(String shards) {
        return "{\"indices\":{\"idx\":{\"shards\":{" + shards + "}}}}";
    }

    private static String primary(int shard, long maxSeqNo, long localCheckpoint) {
        return "\"" + shard + "\":[{\"routing\":{\"state\":\"STARTED\",\"primary\":true},\"seq_no\":{\"max_seq_no\":"
                + maxSeqNo + ",\"local_checkpoint\":" + localCheckpoint + "}}]";
    }

    /** Two copies of shard 1, each its own persisted checkpoint; the primary's global checkpoint behind both. */
    private static String laggingGlobalCheckpoint(int shard, long seqNo, long global) {
        return "\"" + shard + "\":[{\"routing\":{\"state\":\"STARTED\",\"primary\":true},\"seq_no\":{\"max_seq_no\":"
                + seqNo
                + ",\"local_checkpoint\":" + seqNo + ",\"global_checkpoint\":" + global
                + "}},{\"routing\":{\"state\":\"STARTED\",\"primary\":false},\"seq_no\":{\"max_seq_no\":" + seqNo
                + ",\"local_checkpoint\":" + seqNo + ",\"global_checkpoint\":" + global + "}}]";
    }

    /** A primary in the shape Elasticsearch answers with replicas: its global checkpoint is the lowest persisted one of the in-sync copies. */
    private static String primary(int shard, long maxSeqNo, long localCheckpoint, long globalCheckpoint) {
        return "\"" + shard + "\":[{\"routing\":{\"state\":\"STARTED\",\"primary\":true},\"seq_no\":{\"max_seq_no\":"
                + maxSeqNo
                + ",\"local_checkpoint\":" + localCheckpoint + ",\"global_checkpoint\":" + globalCheckpoint
                + "}},{\"routing\":{\"state\":\"STARTED\",\"primary\":false},\"seq_no\":{\"max_seq_no\":" + maxSeqNo
                + ",\"local_checkpoint\":" + globalCheckpoint + ",\"global_checkpoint\":" + globalCheckpoint + "}}]";
    }

    private AcknowledgedWrites writtenOnShard1() {
        AcknowledgedWrites acknowledged = new AcknowledgedWrites();
        acknowledged.record(
                "idx", IndexLayout.of("idx", "u1", new long[] {1, 1}, null).shard(1), 1);
        return acknowledged;
    }

    private CheckpointFence fence() {
        return fence(Duration.ofSeconds(10));
    }

    private CheckpointFence fence(Duration maxSyncWait) {
        return new CheckpointFence(
                client,
                new Backoff(Duration.ofMillis(10), Duration.ofMillis(20)),
                Duration.ofMillis(300),
                maxSyncWait,
                EndOfInputFlushes.join("kes/fence-test-" + UUID.randomUUID())); // alone: a group of one
    }

    /** An index whose translog syncs every 100 ms: within any sync wait, so the fence waits for it. */
    private void translogSyncsEvery100Millis() {
        answers.put("/_cluster/state/metadata/idx", METADATA.replace("30s", "100ms"));
    }

    /** An index syncing its translog every 5 s whose shard 1 persists the writes only once flushed. */
    private void syncsEvery5sAndPersistsShard1OnlyWithAFlush() {
        answers.put("/_cluster/state/metadata/idx", METADATA.replace("30s", "5s"));
        answers.put("/_stats/translog", stats(primary(0, 3, 3) + "," + primary(1, 7, 5)));
        afterFlush.put("/_stats/translog", stats(primary(0, 3, 3) + "," + primary(1, 7, 7)));
        answers.put("/_flush", "{\"_shards\":{\"total\":2,\"successful\":2,\"failed\":0}}");
    }

    @Test
    void aWrittenPrimaryThatPersistsItsWritesWithinTheSyncWaitCompletesTheCheckpointWithoutAFlush() throws Exception {
        translogSyncsEvery100Millis();
        answers.put("/_stats/translog", stats(primary(0, 3, 3) + "," + primary(1, 7, 7)));
        AcknowledgedWrites acknowledged = writtenOnShard1();

        fence(Duration.ofSeconds(1)).check(acknowledged, false);

        assertThat(flushed)
                .as("no _flush: the translog's own sync covered the writes")
                .isFalse();
        assertThat(acknowledged.isEmpty()).as("vouched for, forgotten").isTrue();
    }

    @Test
    void aWrittenPrimaryThatHasNotPersistedItsWritesWhenTheSyncWaitEndsIsFlushed() throws Exception {
        translogSyncsEvery100Millis();
        answers.put("/_stats/translog", stats(primary(0, 3, 3) + "," + primary(1, 7, 5)));
        afterFlush.put("/_stats/translog", stats(primary(0, 3, 3) + "," + primary(1, 7, 7)));
        answers.put("/_flush", "{\"_shards\":{\"total\":2,\"successful\":2,\"failed\":0}}");
        AcknowledgedWrites acknowledged = writtenOnShard1();

        fence(Duration.ofMillis(300)).check(acknowledged, false);

        assertThat(statsBeforeFlush.get())
                .as("it looked at the persisted checkpoints while it waited")
                .isGreaterThan(1);
        assertThat(flushed).as("the writes the sync did not cover were flushed").isTrue();
        assertThat(acknowledged.isEmpty()).isTrue();
    }

    /** Issue 27 item 6: Elasticsearch answers a flush an unavailable primary missed with 200 and failed: 0. */
    @Test
    void aFlushThatAWrittenShardsPrimaryMissedDoesNotCompleteTheCheckpoint() {
        answers.put("/_stats/translog", stats(primary(0, 3, 3)));
        answers.put("/_flush", "{\"_shards\":{\"total\":2,\"successful\":1,\"failed\":0}}");

        assertThatThrownBy(() -> fence().check(writtenOnShard1(), false))
                .hasMessageContaining("_flush of idx did not reach written shard 1: it has no started primary");
    }

    /** A primary that answered the flush but has not persisted the acknowledged writes does not vouch for them. */
    @Test
    void aWrittenPrimaryWhosePersistedCheckpointStaysBehindTheWritesDoesNotCompleteTheCheckpoint() {
        answers.put("/_stats/translog", stats(primary(0, 3, 3) + "," + primary(1, 7, 5)));
        answers.put("/_flush", "{\"_shards\":{\"total\":2,\"successful\":2,\"failed\":0}}");

        assertThatThrownBy(() -> fence().check(writtenOnShard1(), false))
                .hasMessageContaining(
                        "did not reach written shard 1: its in-sync copies persisted up to seq_no 5, the writes reach 7");
    }

    @Test
    void aFlushThatReachedEveryWrittenPrimaryCompletesTheCheckpoint() throws Exception {
        answers.put("/_stats/translog", stats(primary(0, 3, 3) + "," + primary(1, 7, 7)));
        answers.put("/_flush", "{\"_shards\":{\"total\":4,\"successful\":2,\"failed\":0}}");
        AcknowledgedWrites acknowledged = writtenOnShard1();

        fence().check(acknowledged, false);

        assertThat(acknowledged.isEmpty()).as("vouched for, forgotten").isTrue();
    }

    /**
     * At the end of a bounded job's input nothing more will come to share a sync: waiting for the
     * translog's own fsync (up to index.translog.sync_interval) only delays the job's end, so the
     * fence flushes at once.
     */
    @Test
    void atTheEndOfInputTheFenceFlushesAtOnceInsteadOfWaitingForTheTranslogSync() throws Exception {
        syncsEvery5sAndPersistsShard1OnlyWithAFlush();
        AcknowledgedWrites acknowledged = writtenOnShard1();

        fence().check(acknowledged, true);

        assertThat(flushed).isTrue();
        assertThat(statsBeforeFlush)
                .as("the seq_nos to reach read once, no polling for the 5 s sync")
                .hasValue(1);
        assertThat(acknowledged.isEmpty()).as("vouched for, forgotten").isTrue();
    }

    /**
     * A checkpoint's fence still waiting for the translog's own sync when the input ends stops and
     * leaves its writes to the end of input's fence, which comes next: one flush vouches for both.
     * A bounded job's end waited out the sync for it (2-3 s of a 15 s run, measured), and flushing
     * there too flushed twice.
     */
    @Test
    void aFenceWaitingForTheTranslogSyncWhenTheInputEndsLeavesItsWritesToTheEndOfInputsOneFlush() throws Exception {
        syncsEvery5sAndPersistsShard1OnlyWithAFlush();
        AcknowledgedWrites acknowledged = writtenOnShard1();
        CheckpointFence fence = fence(Duration.ofMinutes(10));
        CompletableFuture<Boolean> beforeTheEnd = CompletableFuture.supplyAsync(() -> {
            try {
                return fence.check(acknowledged, false);
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        });
        while (statsBeforeFlush.get() < 2) {
            Thread.sleep(10); // it is polling for the sync
        }

        fence.endOfInput();

        assertThat(beforeTheEnd.get(30, TimeUnit.SECONDS)) // not the 10 minutes it would wait for the sync
                .as("not vouched for by this check")
                .isFalse();
        assertThat(flushed).as("no flush of its own").isFalse();
        assertThat(acknowledged.isEmpty())
                .as("its writes stay for the end of input's check")
                .isFalse();
        assertThat(fence.check(acknowledged, false))
                .as("a later check before the end: at once, nothing read")
                .isFalse();

        assertThat(fence.check(acknowledged, true)).isTrue();
        assertThat(flushed).isTrue();
        assertThat(acknowledged.isEmpty()).as("vouched for, forgotten").isTrue();
    }

    /** The same seen from the epochs: the checkpoint before the end completes with the end of input's epoch, one flush for both. */
    @Test
    void anEpochWhoseFenceStoppedAtTheEndOfInputCompletesWithTheEndOfInputsEpoch() throws Exception {
        syncsEvery5sAndPersistsShard1OnlyWithAFlush();
        EpochFinisher finisher = new EpochFinisher(
                fence(Duration.ofMinutes(10)),
                FailureHandler.failJob(),
                new SimpleCounter(),
                new DescriptiveStatisticsHistogram(10),
                () -> {},
                "test-finisher");
        Epoch beforeTheEnd = new Epoch(1);
        beforeTheEnd.acknowledged.addAll(writtenOnShard1());
        Epoch theEnd = new Epoch(2);
        theEnd.endsInput = true;
        try {
            finisher.finish(beforeTheEnd);
            while (statsBeforeFlush.get() < 2) {
                Thread.sleep(10); // its fence is polling for the sync
            }

            finisher.endOfInput();
            Thread.sleep(200);
            assertThat(beforeTheEnd.durable).as("vouched for by nothing yet").isNotDone();
            finisher.finish(theEnd);

            beforeTheEnd.durable.get(30, TimeUnit.SECONDS);
            theEnd.durable.get(30, TimeUnit.SECONDS);
            assertThat(flushes).as("one flush for both epochs").hasValue(1);
        } finally {
            finisher.close();
        }
    }

    /**
     * Issue 37 item 3: the primary's persisted checkpoint vouched for writes its replica had not
     * persisted; a correlated failure (both copies within one sync interval, the replica back first
     * and promoted) lost them. The fence waits until every in-sync copy persisted them.
     */
    @Test
    void aReplicaThatHasNotPersistedTheWritesKeepsTheFenceWaitingThoughThePrimaryHas() throws Exception {
        translogSyncsEvery100Millis();
        answers.put("/_stats/translog", stats(primary(0, 3, 3, 3) + "," + primary(1, 7, 7, 5)));
        answers.put("/_flush", "{\"_shards\":{\"total\":4,\"successful\":4,\"failed\":0}}");

        assertThatThrownBy(() -> fence(Duration.ofMillis(300)).check(writtenOnShard1(), false))
                .hasMessageContaining("did not reach written shard 1: its in-sync copies persisted up to seq_no 5, "
                        + "the writes reach 7");
        assertThat(statsBeforeFlush.get())
                .as("it waited for the copies' syncs before it flushed")
                .isGreaterThan(1);
    }

    @Test
    void writesEveryInSyncCopyPersistedCompleteTheCheckpointWithoutAFlush() throws Exception {
        translogSyncsEvery100Millis();
        answers.put("/_stats/translog", stats(primary(0, 3, 3, 3) + "," + primary(1, 7, 7, 7)));
        AcknowledgedWrites acknowledged = writtenOnShard1();

        fence(Duration.ofSeconds(1)).check(acknowledged, false);

        assertThat(flushed).isFalse();
        assertThat(acknowledged.isEmpty()).isTrue();
    }

    /**
     * The primary learns a copy's persisted checkpoint only with its next write or a periodic sync
     * (an idle shard's global checkpoint lagged 12 to 23 s on Elasticsearch 9.5): where the answer
     * lists every in-sync copy, their own checkpoints vouch for the writes as soon as they persist.
     */
    @Test
    void everyInSyncCopyReportingItsOwnPersistedCheckpointCompletesTheCheckpointWhileTheGlobalOneLags()
            throws Exception {
        answers.put(
                "/_cluster/state/metadata/idx",
                METADATA.replace("30s", "100ms")
                        .replace(
                                "\"routing_num_shards\"",
                                "\"in_sync_allocations\":{\"0\":[\"a\"],\"1\":[\"b\",\"c\"]},"
                                        + "\"routing_num_shards\""));
        answers.put("/_stats/translog", stats(primary(0, 3, 3, 3) + "," + laggingGlobalCheckpoint(1, 7, 5)));
        AcknowledgedWrites acknowledged = writtenOnShard1();

        fence(Duration.ofSeconds(1)).check(acknowledged, false);

        assertThat(flushed)
                .as("no _flush: both in-sync copies said so themselves")
                .isFalse();
        assertThat(acknowledged.isEmpty()).isTrue();
    }

    @Test
    void aCopyMissingFromTheAnswerLeavesTheGlobalCheckpointToDecide() {
        answers.put(
                "/_cluster/state/metadata/idx",
                METADATA.replace("30s", "100ms")
                        .replace(
                                "\"routing_num_shards\"",
                                "\"in_sync_allocations\":{\"0\":[\"a\"],\"1\":[\"b\",\"c\",\"d\"]},"
                                        + "\"routing_num_shards\""));
        answers.put("/_stats/translog", stats(primary(0, 3, 3, 3) + "," + laggingGlobalCheckpoint(1, 7, 5)));
        answers.put("/_flush", "{\"_shards\":{\"total\":6,\"successful\":5,\"failed\":0}}");

        assertThatThrownBy(() -> fence(Duration.ofMillis(300)).check(writtenOnShard1(), false))
                .hasMessageContaining("its in-sync copies persisted up to seq_no 5");
    }

    /** Shard 1 has two in-sync copies (b, c) in the cluster state. */
    private void twoInSyncCopiesOfShard1() {
        answers.put(
                "/_cluster/state/metadata/idx",
                METADATA.replace("30s", "100ms")
                        .replace(
                                "\"routing_num_shards\"",
                                "\"in_sync_allocations\":{\"0\":[\"a\"],\"1\":[\"b\",\"c\"]},"
                                        + "\"routing_num_shards\""));
        answers.put("/_flush", "{\"_shards\":{\"total\":4,\"successful\":4,\"failed\":0}}");
    }

    /** Shard 1: its primary (persisted 7, global checkpoint 5) and one other copy, in {@code state}, persisted 7. */
    private static String shard1With(String state) {
        return "\"1\":[{\"routing\":{\"state\":\"STARTED\",\"primary\":true},\"seq_no\":{\"max_seq_no\":7,"
                + "\"local_checkpoint\":7,\"global_checkpoint\":5}},{\"routing\":{\"state\":\"" + state
                + "\",\"primary\":false},\"seq_no\":{\"max_seq_no\":7,\"local_checkpoint\":7,\"global_checkpoint\":5}}]";
    }

    /**
     * Issue 66 item 4: {@code _stats} lists recovering copies too (a replica being rebuilt, a
     * relocation's target). Counted, one stood in for an in-sync replica whose own stats failed:
     * the fence passed while that replica, which the cluster may promote, had not persisted the writes.
     */
    @Test
    void aRecoveringCopyDoesNotStandInForAnInSyncCopyMissingFromTheAnswer() {
        twoInSyncCopiesOfShard1();
        answers.put(
                "/_stats/translog",
                "{\"_shards\":{\"failed\":0},\"indices\":{\"idx\":{\"shards\":{" + primary(0, 3, 3, 3) + ","
                        + shard1With("INITIALIZING") + "}}}}");

        assertThatThrownBy(() -> fence(Duration.ofMillis(300)).check(writtenOnShard1(), false))
                .as("only the global checkpoint vouches: the in-sync replica did not answer")
                .hasMessageContaining("its in-sync copies persisted up to seq_no 5");
    }

    /**
     * Issue 66 item 4: an answer with shard failures is partial, and the in-sync count it is
     * compared with was read before it: the copies it lists may not be the in-sync ones. Only the
     * primary's global checkpoint decides then.
     */
    @Test
    void anAnswerWithShardFailuresLeavesTheGlobalCheckpointToDecide() {
        twoInSyncCopiesOfShard1();
        answers.put(
                "/_stats/translog",
                "{\"_shards\":{\"failed\":1,\"failures\":[{\"shard\":1,\"index\":\"idx\"}]},"
                        + "\"indices\":{\"idx\":{\"shards\":{" + primary(0, 3, 3, 3) + "," + shard1With("STARTED")
                        + "}}}}");

        assertThatThrownBy(() -> fence(Duration.ofMillis(300)).check(writtenOnShard1(), false))
                .hasMessageContaining("its in-sync copies persisted up to seq_no 5");
    }
}
