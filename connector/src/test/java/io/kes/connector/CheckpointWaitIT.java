package io.kes.connector;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.Http;
import io.kes.stack.SearchNode;
import io.kes.stack.junit.ElasticsearchExtension;
import io.kes.stack.junit.SearchTarget;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A checkpoint waits until Elasticsearch holds every write before its barrier durably, and the
 * writes behind the barrier go on meanwhile: the wait is in the asynchronous part of the checkpoint,
 * not on the task thread. Durably means the translog fsync Elasticsearch does by itself; only an
 * index that syncs too rarely gets a {@code _flush}. The fence's two cases run on every target
 * (Elasticsearch 8.19 and 9.x, OpenSearch 2.19 and 3.x); the 3 s stall, a timing test, on the
 * default Elasticsearch only.
 */
@ExtendWith(ElasticsearchExtension.class)
class CheckpointWaitIT {

    private static final long DOCS = 60_000;
    private static final long STALL_MILLIS = 3_000;
    private static final AtomicBoolean STALLED = new AtomicBoolean();
    private static final AtomicLong INDEXED_BEFORE_STALL = new AtomicLong();
    private static final AtomicLong INDEXED_AFTER_STALL = new AtomicLong();
    private static final AtomicLong CHECKPOINTS_BEFORE_STALL = new AtomicLong();
    private static final AtomicLong CHECKPOINTS_AFTER_STALL = new AtomicLong();

    /**
     * Its flush is the last step of making a checkpoint's writes safe (after the fence). Once, when
     * a fifth of the stream is indexed, it takes 3 s: a slow dead-letter topic, or a slow _flush.
     */
    static final class SlowOnce implements FailureHandler {
        private static final long serialVersionUID = 1L;

        @Override
        public void onFailures(List<FailedOperation> failures) {
            throw new AssertionError("no write should fail: " + failures);
        }

        @Override
        public void flush() throws InterruptedException {
            if (RecordingReporter.sum("numRecordsSend") >= DOCS / 5 && STALLED.compareAndSet(false, true)) {
                INDEXED_BEFORE_STALL.set(RecordingReporter.sum("numRecordsSend"));
                CHECKPOINTS_BEFORE_STALL.set(completedCheckpoints());
                Thread.sleep(STALL_MILLIS);
                INDEXED_AFTER_STALL.set(RecordingReporter.sum("numRecordsSend"));
                CHECKPOINTS_AFTER_STALL.set(completedCheckpoints());
            }
        }
    }

    @Test
    void writesBehindABarrierContinueWhileTheCheckpointWaitsAndItCompletesOnlyAfterTheWait(ElasticsearchNode es)
            throws Exception {
        // a fast translog sync keeps each fence short, so that the slow flush lands mid-stream
        es.http()
                .send(
                        "PUT",
                        "/checkpoint-wait",
                        "{\"settings\":{\"number_of_shards\":3,\"number_of_replicas\":0,"
                                + "\"translog.durability\":\"async\",\"translog.sync_interval\":\"100ms\"}}")
                .requireOk("create");
        // bulks of 250: had writing stopped at the barrier, at most 4 bulks in flight + 3 shard buffers
        // = 1,750 documents could still have been acknowledged during the stall
        ElasticsearchSink sink = ElasticsearchSink.builder()
                .setHosts(es.url())
                .setBulkMaxDocs(250)
                .setFailureHandler(new SlowOnce())
                .build();

        SinkPipelines.start(sink, "checkpoint-wait", DOCS, 10_000, 1, Duration.ofMillis(500))
                .getJobExecutionResult()
                .get();

        assertThat(STALLED).as("the slow flush ran").isTrue();
        // 30,000 offered in the 3 s; the bound leaves room for a loaded machine (9,000 seen at load 20 on 2 cores)
        assertThat(INDEXED_AFTER_STALL.get() - INDEXED_BEFORE_STALL.get())
                .as(
                        "documents indexed while a checkpoint waited 3 s for the writes before its barrier (10,000/s offered;"
                                + " at most 1,750 were in flight or buffered at the barrier)")
                .isGreaterThan(4_000);
        assertThat(CHECKPOINTS_AFTER_STALL.get())
                .as("checkpoints completed while one waited")
                .isEqualTo(CHECKPOINTS_BEFORE_STALL.get());
        assertThat(es.http().refreshAndCount("checkpoint-wait")).isEqualTo(DOCS);
    }

    /**
     * A checkpoint still waiting for the translog's own sync when a bounded input ends completes
     * with the end of input's one flush: the job ends in seconds, not when the sync comes (two
     * minutes after the index was made), and by then every shard has persisted every write.
     */
    @Test
    void aCheckpointWaitingForTheSyncWhenTheInputEndsCompletesWithTheEndOfInputsOneFlush(ElasticsearchNode es)
            throws Exception {
        es.http()
                .send(
                        "PUT",
                        "/fence-end",
                        "{\"settings\":{\"number_of_shards\":3,\"number_of_replicas\":0,"
                                + "\"translog.durability\":\"async\",\"translog.sync_interval\":\"2m\"}}")
                .requireOk("create");
        Configuration waitForTheSync = new Configuration();
        waitForTheSync.set(ElasticsearchSinkOptions.FENCE_SYNC_WAIT, Duration.ofMinutes(5));
        ElasticsearchSink sink = ElasticsearchSink.builder()
                .setHosts(es.url())
                .setBulkMaxDocs(250)
                .setAll(waitForTheSync)
                .build();

        // 2.5 s of writing, a checkpoint every 200 ms: the first one's fence waits for the 2 min sync
        SinkPipelines.start(sink, "fence-end", 5_000, 2_000, 1, Duration.ofMillis(200))
                .getJobExecutionResult()
                .get(60, TimeUnit.SECONDS);

        JsonNode shards = new ObjectMapper()
                .readTree(es.http()
                        .get("/fence-end/_stats/translog?level=shards&filter_path=indices.*.shards.*.seq_no")
                        .requireOk("shard stats")
                        .body())
                .path("indices")
                .path("fence-end")
                .path("shards");
        long persisted = 0;
        for (int shard = 0; shard < 3; shard++) {
            JsonNode seqNo = shards.path(String.valueOf(shard)).path(0).path("seq_no");
            assertThat(seqNo.path("local_checkpoint").asLong())
                    .as("shard %d's persisted checkpoint at the job's end, before the translog's own sync", shard)
                    .isEqualTo(seqNo.path("max_seq_no").asLong());
            persisted += seqNo.path("max_seq_no").asLong() + 1;
        }
        assertThat(persisted).as("writes persisted over the 3 shards").isEqualTo(5_000);
        String flushes = es.http()
                .get("/fence-end/_stats/flush?filter_path=_all.primaries.flush.total")
                .requireOk("flush stats")
                .body();
        assertThat(Http.longField(flushes, "total"))
                .as("one _flush (3 shards) for both checkpoints")
                .isEqualTo(3);
        assertThat(es.http().refreshAndCount("fence-end")).isEqualTo(5_000);
        JsonNode hits = new ObjectMapper()
                .readTree(es.http()
                        .get("/fence-end/_search?size=5000&filter_path=hits.hits._id,hits.hits._source")
                        .requireOk("search")
                        .body())
                .path("hits")
                .path("hits");
        assertThat(hits).hasSize(5_000);
        for (JsonNode hit : hits) {
            assertThat("doc-" + hit.path("_source").path("n").asLong())
                    .as("each document holds its own value")
                    .isEqualTo(hit.path("_id").asText());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.kes.stack.junit.SearchTarget#newestOrAll")
    void theFenceWaitsForTheTranslogsOwnSyncInsteadOfFlushing(SearchTarget target) throws Exception {
        long flushes = flushesWhileWriting(target.node(), "fence-sync", "1s", 20_000);

        assertThat(completedCheckpoints())
                .as("checkpoints that passed the fence")
                .isPositive();
        // The end of this bounded input is flushed (nothing later shares the next sync): one
        // _flush, counted once per shard (3). A fence flushing at its checkpoints (one every 500 ms
        // here) would count far more.
        assertThat(flushes)
                .as("_flush calls on an index that syncs its translog every second, beside the end of input's")
                .isLessThanOrEqualTo(3);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.kes.stack.junit.SearchTarget#newestOrAll")
    void anIndexThatSyncsLessOftenThanTheFenceWaitsIsFlushed(SearchTarget target) throws Exception {
        long flushes = flushesWhileWriting(target.node(), "fence-flush", "60s", 5_000);

        assertThat(flushes)
                .as("_flush calls: translog synced every 60 s, fence_sync_wait 10 s")
                .isPositive();
    }

    /**
     * The end of a bounded input flushes with a {@code _refresh} beside it (the refresh pool writes
     * the indexing buffer's segments while the flush pool commits): when the job ends, every
     * document is searchable even in an index that never refreshes by itself, and persisted.
     */
    @Test
    void aBoundedJobsDocumentsAreSearchableWhenItEndsEvenWithoutRefreshes(ElasticsearchNode es) throws Exception {
        es.http()
                .send(
                        "PUT",
                        "/fence-end-refresh",
                        "{\"settings\":{\"number_of_shards\":3,\"number_of_replicas\":0,\"refresh_interval\":\"-1\","
                                + "\"translog.durability\":\"async\",\"translog.sync_interval\":\"2m\"}}")
                .requireOk("create");
        ElasticsearchSink sink = ElasticsearchSink.builder().setHosts(es.url()).build();

        SinkPipelines.start(sink, "fence-end-refresh", 3_000, 3_000, 1, Duration.ofSeconds(30))
                .getJobExecutionResult()
                .get(60, TimeUnit.SECONDS);

        String count =
                es.http().get("/fence-end-refresh/_count").requireOk("count").body();
        assertThat(Http.longField(count, "count"))
                .as("documents searchable at the job's end, no refresh asked for by the test")
                .isEqualTo(3_000);
        String flushes = es.http()
                .get("/fence-end-refresh/_stats/flush?filter_path=_all.primaries.flush.total")
                .requireOk("flush stats")
                .body();
        assertThat(Http.longField(flushes, "total")).as("one _flush (3 shards)").isEqualTo(3);
    }

    /** Writes {@code docs} documents (5,000/s, checkpoints every 500 ms) into a fresh async index; returns its _flush count. */
    private static long flushesWhileWriting(SearchNode es, String index, String syncInterval, long docs)
            throws Exception {
        es.http()
                .send(
                        "PUT",
                        "/" + index,
                        "{\"settings\":{\"number_of_shards\":3,\"number_of_replicas\":0,"
                                + "\"translog.durability\":\"async\",\"translog.sync_interval\":\"" + syncInterval
                                + "\"}}")
                .requireOk("create");
        ElasticsearchSink sink = ElasticsearchSink.builder().setHosts(es.url()).build();

        SinkPipelines.start(sink, index, docs, 5_000, 1, Duration.ofMillis(500))
                .getJobExecutionResult()
                .get();

        assertThat(es.http().refreshAndCount(index)).isEqualTo(docs);
        String body = es.http()
                .get("/" + index + "/_stats/flush?filter_path=_all.primaries.flush.total")
                .requireOk("flush stats")
                .body();
        return Http.longField(body, "total");
    }

    private static long completedCheckpoints() {
        return RecordingReporter.sum("numberOfCompletedCheckpoints");
    }
}
