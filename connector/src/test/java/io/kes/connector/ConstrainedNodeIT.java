package io.kes.connector;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.Http;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A node that pushes back: a tiny write queue rejects most concurrent shard-level writes (429),
 * and a small {@code http.max_content_length} refuses large bulks (413). Nothing may be lost or
 * reordered on the way.
 */
class ConstrainedNodeIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int KEYS = 400;
    private static final int UPDATES = 16_000;
    private static final int PARALLELISM = 2;
    private static ElasticsearchNode node;

    @BeforeAll
    static void startNodeWithATinyWriteQueue() {
        node = ElasticsearchNode.builder()
                .setting("thread_pool.write.size", "2")
                .setting("thread_pool.write.queue_size", "1")
                .setting("http.max_content_length", "16kb")
                .build()
                .start();
    }

    @AfterAll
    static void stopNode() {
        if (node != null) {
            node.stop();
        }
    }

    /**
     * Mixed bulks (six shard-level writes each) overflow the queue at once; the writer retries
     * exactly the rejected items with backoff until every document is in.
     */
    @Test
    void rejectedItemsAreRetriedWithBackoffUntilEveryDocumentIsIndexed() throws Exception {
        int docs = 20_000;
        Http http = node.http();
        http.send("PUT", "/storm", "{\"settings\":{\"number_of_shards\":6,\"number_of_replicas\":0}}")
                .requireOk("create");
        ElasticsearchSink sink = ElasticsearchSink.builder()
                .setHosts(node.url())
                .setShardGrouping(false)
                .setBulkMaxDocs(200)
                .setMaxInFlight(8)
                .setRetry(Duration.ofMillis(20), Duration.ofMillis(500), Duration.ofMinutes(3))
                .build();
        long rejectedBefore = rejectedByNode(http);
        SinkPipelines.run(sink, "storm", docs, 2);

        assertThat(http.refreshAndCount("storm")).isEqualTo(docs);
        long rejected = rejectedByNode(http) - rejectedBefore;
        long retried = RecordingReporter.sum("kes.itemRetriesRejected");
        System.out.printf(
                "429 storm: node rejected %d shard-level writes, writer retried %d items, %d docs indexed%n",
                rejected, retried, docs);
        assertThat(rejected).isPositive();
        assertThat(retried).isPositive();
        assertThat(RecordingReporter.sum("kes.permanentFailures")).isZero();
    }

    private static long rejectedByNode(Http http) throws Exception {
        return Http.longField(
                http.get("/_nodes/stats/thread_pool?filter_path=nodes.*.thread_pool.write.rejected")
                        .requireOk("stats")
                        .body(),
                "rejected");
    }

    /**
     * Every id ends with the value of its last write, not merely with a document: a keyed change
     * stream (many updates and some deletes per id), where bulks of one shard are retried while
     * later bulks of the same shard are ready to go. An older value that overtakes a newer one, or
     * a delete that a retried index resurrects, shows up as a wrong {@code v}. (Before per-id
     * ordering: 217 of 400 ids wrong.)
     */
    @Test
    void everyIdEndsWithItsLastWriteDespiteConcurrentBulksAndRetries() throws Exception {
        everyIdEndsWithItsLastWrite("per-id-order", false);
    }

    /**
     * The same with adaptive concurrency: the node's rejections cut its in-flight limit (fewer
     * bulks at once), and order holds while the limit moves.
     */
    @Test
    void withAdaptiveConcurrencyRejectionsCutTheNodesLimitAndEveryIdStillEndsWithItsLastWrite() throws Exception {
        everyIdEndsWithItsLastWrite("per-id-order-adaptive", true);
        assertThat(RecordingReporter.sum("kes.concurrencyCuts"))
                .as("cuts of the node's in-flight limit")
                .isPositive();
    }

    private void everyIdEndsWithItsLastWrite(String index, boolean adaptive) throws Exception {
        Http http = node.http();
        http.send("PUT", "/" + index, "{\"settings\":{\"number_of_shards\":3,\"number_of_replicas\":0}}")
                .requireOk("create");
        ElasticsearchSink sink = ElasticsearchSink.builder()
                .setHosts(node.url())
                .setBulkMaxDocs(50)
                .setMaxInFlight(8)
                .setBulkLinger(Duration.ofMillis(20))
                .setRetry(Duration.ofMillis(5), Duration.ofMillis(200), Duration.ofMinutes(3))
                .set(ElasticsearchSinkOptions.BULK_ADAPTIVE_CONCURRENCY, adaptive)
                .build();
        SinkPipelines.start(sink, UPDATES, 0, PARALLELISM, null, new KeyedChanges(index))
                .getJobExecutionResult()
                .get();

        List<String> wrong = new ArrayList<>();
        http.send("POST", "/" + index + "/_refresh", "").requireOk("refresh");
        for (int key = 0; key < KEYS; key++) {
            long expected = KeyedChanges.lastVersion(key);
            boolean deleted = KeyedChanges.isDelete(key, expected);
            Http.Response doc = http.get("/" + index + "/_doc/key-" + key);
            if (deleted) {
                if (doc.status() != 404) {
                    wrong.add("key-" + key + ": deleted at v" + expected + " but holds " + doc.body());
                }
            } else if (doc.status() != 200) {
                wrong.add("key-" + key + ": expected v" + expected + ", document missing");
            } else {
                JsonNode source = JSON.readTree(doc.body()).path("_source");
                if (source.path("v").asLong() != expected) {
                    wrong.add("key-" + key + ": expected v" + expected + ", found v"
                            + source.path("v").asLong());
                }
            }
        }
        long retried = RecordingReporter.sum("kes.itemRetriesRejected") + RecordingReporter.sum("kes.requestRetries");
        System.out.printf("per-id order: %d keys checked, %d retries, %d wrong%n", KEYS, retried, wrong.size());
        assertThat(retried)
                .as("the node must have rejected writes, or this test proves nothing")
                .isPositive();
        assertThat(wrong).as("ids whose final document is not their last write").isEmpty();
    }

    /**
     * Bulks over the node's 16 kb limit are answered 413: the writer sends them in parts, in order,
     * and a document that alone is over the limit goes to the failure handler with its origin.
     * (Before: the job failed on the first 413, and again on every replay.)
     */
    @Test
    void aBulkOverTheNodesContentLimitIsSentInPartsAndAnOversizedDocumentGoesToTheFailureHandler() throws Exception {
        Http http = node.http();
        String index = "too-large";
        int docs = 2_000;
        long huge = 1_000;
        http.send("PUT", "/" + index, "{\"settings\":{\"number_of_shards\":2,\"number_of_replicas\":0}}")
                .requireOk("create");
        FailureHandlingIT.COLLECTED.clear();
        ElasticsearchSink sink = ElasticsearchSink.builder()
                .setHosts(node.url())
                .setBulkMaxBytes(org.apache.flink.configuration.MemorySize.parse("256kb"))
                .setBulkMaxDocs(1_000)
                .setRetry(Duration.ofMillis(5), Duration.ofMillis(200), Duration.ofMinutes(3))
                .setFailureHandler(new FailureHandlingIT.Collecting())
                .build();
        String pad = "x".repeat(200);
        String hugePad = "y".repeat(40_000);
        SinkPipelines.start(
                        sink,
                        docs,
                        0,
                        1,
                        null,
                        i -> DocumentOperation.index(
                                index,
                                "doc-" + i,
                                ("{\"n\":" + i + ",\"pad\":\"" + (i == huge ? hugePad : pad) + "\"}")
                                        .getBytes(StandardCharsets.UTF_8)))
                .getJobExecutionResult()
                .get();

        assertThat(http.refreshAndCount(index)).isEqualTo(docs - 1);
        assertThat(RecordingReporter.sum("kes.bulksSplitTooLarge")).isPositive();
        assertThat(FailureHandlingIT.COLLECTED).singleElement().satisfies(f -> {
            assertThat(f.status()).isEqualTo(413);
            assertThat(f.operation().id()).isEqualTo("doc-" + huge);
            assertThat(f.reason()).contains("http.max_content_length");
        });
    }

    /**
     * Update {@code i} of the stream writes version {@code i / KEYS} of one key. Keys are split by
     * the generator's ranges (one range per source subtask), so every key's updates come from one
     * subtask, in order. Every 7th version of a key is a delete, and some keys end deleted.
     */
    static final class KeyedChanges implements GeneratorFunction<Long, DocumentOperation> {
        private static final long serialVersionUID = 1L;
        private static final int KEYS_PER_RANGE = KEYS / PARALLELISM;
        private static final int UPDATES_PER_RANGE = UPDATES / PARALLELISM;
        private final String index;

        KeyedChanges(String index) {
            this.index = index;
        }

        static int key(long i) {
            long range = i / UPDATES_PER_RANGE;
            return (int) (range * KEYS_PER_RANGE + (i % UPDATES_PER_RANGE) % KEYS_PER_RANGE);
        }

        static long version(long i) {
            return (i % UPDATES_PER_RANGE) / KEYS_PER_RANGE;
        }

        static long lastVersion(int key) {
            return (long) UPDATES_PER_RANGE / KEYS_PER_RANGE - 1;
        }

        static boolean isDelete(int key, long version) {
            return (key + version) % 7 == 6;
        }

        @Override
        public DocumentOperation map(Long i) {
            String id = "key-" + key(i);
            long v = version(i);
            if (isDelete(key(i), v)) {
                return DocumentOperation.delete(index, id);
            }
            return DocumentOperation.index(
                    index, id, ("{\"k\":\"" + id + "\",\"v\":" + v + "}").getBytes(StandardCharsets.UTF_8));
        }
    }
}
