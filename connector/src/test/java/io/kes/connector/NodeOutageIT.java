package io.kes.connector;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.stack.ElasticsearchNode;
import io.kes.stack.Http;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A node that stops or freezes mid-stream: the writer waits, holds memory bounded, and loses nothing. */
class NodeOutageIT {

    private static ElasticsearchNode node;

    @BeforeAll
    static void startNode() {
        node = ElasticsearchNode.builder().build().start();
    }

    @AfterAll
    static void stopNode() {
        if (node != null) {
            node.stop();
        }
    }

    @Test
    void writesSurviveANodeThatStopsAndComesBack() throws Exception {
        int docs = 20_000;
        Http http = node.http();
        http.send("PUT", "/outage", "{\"settings\":{\"number_of_shards\":3,\"number_of_replicas\":0}}")
                .requireOk("create");
        ElasticsearchSink sink = ElasticsearchSink.builder()
                .setHosts(node.url())
                .setRetry(Duration.ofMillis(100), Duration.ofSeconds(2), Duration.ofMinutes(3))
                .build();
        JobClient job = SinkPipelines.start(sink, "outage", docs, 2000, 2, Duration.ofSeconds(2));
        CompletableFuture<JobExecutionResult> result = job.getJobExecutionResult();
        awaitIndexedAtLeast(2000);
        node.stop();
        Thread.sleep(3000);
        assertThat(result).isNotDone();
        node.start();
        result.get();

        assertThat(http.refreshAndCount("outage")).isEqualTo(docs);
    }

    @Test
    void aFrozenNodeStopsIntakeKeepsMemoryBoundedAndHoldsCheckpointsBack() throws Exception {
        int docs = 40_000;
        int maxInFlight = 2;
        int maxDocs = 500;
        long maxQueuedBytes = 64 * 1024;
        Http http = node.http();
        http.send("PUT", "/frozen", "{\"settings\":{\"number_of_shards\":6,\"number_of_replicas\":0}}")
                .requireOk("create");
        // Full buffers wait in the node's queue up to bulk.max_queued_bytes; then the writer blocks.
        ElasticsearchSink sink = ElasticsearchSink.builder()
                .setHosts(node.url())
                .setMaxInFlight(maxInFlight)
                .setBulkMaxDocs(maxDocs)
                .set(
                        ElasticsearchSinkOptions.BULK_MAX_QUEUED_BYTES,
                        org.apache.flink.configuration.MemorySize.parse("64kb"))
                .build();
        JobClient job = SinkPipelines.start(sink, "frozen", docs, 5000, 2, Duration.ofMillis(500));
        awaitIndexedAtLeast(5000);

        node.pause();
        long maxInFlightSeen = 0;
        long maxBufferedSeen = 0;
        long maxQueuedSeen = 0;
        long checkpointsAtFreeze;
        long readAfterSettling;
        try {
            Thread.sleep(
                    2000); // in-flight bulks hang; buffers fill, then the queue; network buffers fill; the source stops
            checkpointsAtFreeze = completedCheckpoints();
            readAfterSettling = documentsRead();
            assertThat(readAfterSettling)
                    .as("documents read before the freeze (at least the 5,000 indexed)")
                    .isGreaterThanOrEqualTo(5000);
            for (int i = 0; i < 20; i++) {
                Thread.sleep(200);
                maxInFlightSeen = Math.max(maxInFlightSeen, RecordingReporter.max("kes.inFlightBulks"));
                maxBufferedSeen = Math.max(maxBufferedSeen, RecordingReporter.max("kes.bufferedDocs"));
                maxQueuedSeen = Math.max(maxQueuedSeen, RecordingReporter.max("kes.queuedBytes"));
            }
            assertThat(completedCheckpoints())
                    .as("checkpoints completed while Elasticsearch was frozen")
                    .isEqualTo(checkpointsAtFreeze);
            assertThat(documentsRead() - readAfterSettling)
                    .as("documents read while Elasticsearch was frozen (backpressure)")
                    .isLessThan(500);
        } finally {
            node.resume();
        }
        job.getJobExecutionResult().get();

        assertThat(maxInFlightSeen).isLessThanOrEqualTo(maxInFlight);
        assertThat(maxBufferedSeen)
                .as("buffered docs per writer: at most one buffer per slot")
                .isLessThanOrEqualTo(6L * maxDocs);
        // Queued bytes are bytes of heap (BulkBody.heapBytes): one buffer's array as allocated (a
        // buffer starts at 64 KB) and, per document, its operation kept beside the body (~200 B here).
        long oneBufferHeap = 64 * 1024 + maxDocs * 300L;
        assertThat(maxQueuedSeen)
                .as("queued heap bytes per writer: the bound, plus the one buffer that passed it")
                .isPositive()
                .isLessThanOrEqualTo(maxQueuedBytes + oneBufferHeap);
        assertThat(http.refreshAndCount("frozen")).isEqualTo(docs);
    }

    private static long documentsRead() {
        return RecordingReporter.sumOfOperator("documents", "numRecordsOut");
    }

    private static long completedCheckpoints() {
        return RecordingReporter.sum("numberOfCompletedCheckpoints");
    }

    private static void awaitIndexedAtLeast(long docs) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (RecordingReporter.sum("numRecordsSend") < docs) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("fewer than " + docs + " documents acknowledged after 60 s");
            }
            Thread.sleep(100);
        }
    }
}
