package io.kes.connector;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.stack.ElasticsearchNode;
import io.kes.stack.Http;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A node with one write thread and a write queue of one rejects most concurrent shard-level
 * writes with 429 {@code es_rejected_execution_exception}. The writer retries exactly the rejected
 * items with backoff until every document is in.
 */
class RejectionStormIT {

    private static ElasticsearchNode node;

    @BeforeAll
    static void startNodeWithATinyWriteQueue() {
        node = ElasticsearchNode.builder()
                .setting("thread_pool.write.size", "1")
                .setting("thread_pool.write.queue_size", "1")
                .build().start();
    }

    @AfterAll
    static void stopNode() {
        if (node != null) {
            node.stop();
        }
    }

    @Test
    void rejectedItemsAreRetriedWithBackoffUntilEveryDocumentIsIndexed() throws Exception {
        int docs = 20_000;
        Http http = node.http();
        http.send("PUT", "/storm", "{\"settings\":{\"number_of_shards\":6,\"number_of_replicas\":0}}").requireOk("create");
        ElasticsearchSink sink = ElasticsearchSink.builder().setHosts(node.url())
                .setShardGrouping(false) // mixed bulks: six shard-level writes each, the queue overflows at once
                .setBulkMaxDocs(200).setMaxInFlight(8)
                .setRetry(Duration.ofMillis(20), Duration.ofMillis(500), Duration.ofMinutes(3))
                .build();
        SinkPipelines.run(sink, "storm", docs, 2);

        assertThat(http.refreshAndCount("storm")).isEqualTo(docs);
        long rejectedByNode = Http.longField(http.get("/_nodes/stats/thread_pool?filter_path=nodes.*.thread_pool.write.rejected").requireOk("stats").body(), "rejected");
        long retried = RecordingReporter.sum("kes.itemRetriesRejected");
        System.out.printf("429 storm: node rejected %d shard-level writes, writer retried %d items, %d docs indexed%n",
                rejectedByNode, retried, docs);
        assertThat(rejectedByNode).isPositive();
        assertThat(retried).isPositive();
        assertThat(RecordingReporter.sum("kes.permanentFailures")).isZero();
    }
}
