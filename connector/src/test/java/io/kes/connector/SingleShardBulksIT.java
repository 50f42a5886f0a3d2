package io.kes.connector;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.stack.Engine;
import io.kes.stack.Http;
import io.kes.stack.SearchNode;
import io.kes.stack.junit.SearchTarget;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Server-side proof: Elasticsearch counts shard-level bulk operations per index
 * ({@code _stats/bulk}) and {@code _bulk} HTTP requests per node ({@code _nodes/stats/http}). With
 * shard grouping the two are equal (every bulk touched one shard); without, each bulk touches
 * about every shard. OpenSearch counts neither: there the bulk requests are the ones kes counted
 * sending ({@code bulksSent}) and the shard-level bulks are the tasks of the node's write thread
 * pool (one per shard-level bulk).
 */
class SingleShardBulksIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int DOCS = 30_000;

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.kes.stack.junit.SearchTarget#newestOrAll")
    void everyBulkTouchesExactlyOneShardWithGrouping(SearchTarget target) throws Exception {
        Ratio ratio = run(target.node(), "single-shard-bulks", true);
        assertThat(ratio.bulkRequests).isGreaterThan(DOCS / 1000);
        assertThat(ratio.shardOperations).isEqualTo(ratio.bulkRequests);
        assertThat(RecordingReporter.max("kes.shardsPerBulk")).isLessThanOrEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.kes.stack.junit.SearchTarget#newestOrAll")
    void mixedBulksTouchAboutEveryShardWithoutGrouping(SearchTarget target) throws Exception {
        Ratio ratio = run(target.node(), "mixed-bulks", false);
        assertThat((double) ratio.shardOperations / ratio.bulkRequests).isGreaterThan(5.0);
    }

    /**
     * 48 shards, 4 writers, about 1,000 documents per shard, bulks of up to 2,000 sent at the end
     * of input. Keyed by slot, each shard's documents meet in one writer: one bulk per shard.
     * Chained, every writer buffers every shard and gets a quarter of each: four bulks per shard.
     *
     * <p>The input is throttled to two seconds so each of the four source readers takes one of the
     * four splits: unthrottled, a reader can finish its split before another asks for one and take
     * that one too, and the chained run then has three writers with input instead of four.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.kes.stack.junit.SearchTarget#newest")
    void keyedWritersBufferEachShardOnceSoBulksFillAtAnyParallelism(SearchTarget target) throws Exception {
        int shards = 48;
        int docs = shards * 1_000;
        Http http = target.node().http();
        long[] bulks = new long[ElasticsearchSinkOptions.Topology.values().length];
        for (ElasticsearchSinkOptions.Topology topology :
                List.of(ElasticsearchSinkOptions.Topology.CHAINED, ElasticsearchSinkOptions.Topology.KEYED)) {
            String index = "bulk-fill-" + topology.name().toLowerCase(java.util.Locale.ROOT);
            http.send("DELETE", "/" + index + "?ignore_unavailable=true", null);
            http.send(
                            "PUT",
                            "/" + index,
                            "{\"settings\":{\"number_of_shards\":" + shards + ",\"number_of_replicas\":0},"
                                    + "\"mappings\":{\"properties\":{\"n\":{\"type\":\"long\"}}}}")
                    .requireOk("create");
            ElasticsearchSink sink = ElasticsearchSink.builder()
                    .setHosts(target.node().url())
                    .setTopology(topology)
                    .setBulkMaxDocs(2_000)
                    .setBulkLinger(java.time.Duration.ofSeconds(60))
                    .setBulkCoalesce(java.time.Duration.ofSeconds(60)) // the bulks leave at the end of input only
                    .build();
            SinkPipelines.start(sink, index, docs, docs / 2.0, 4, null)
                    .getJobExecutionResult()
                    .get();
            assertThat(http.refreshAndCount(index)).isEqualTo(docs);
            bulks[topology.ordinal()] = RecordingReporter.sum("bulksSent");
            System.out.printf(
                    "%s: %d documents in %d bulks, per writer %s%n",
                    topology, docs, bulks[topology.ordinal()], RecordingReporter.values("bulksSent"));
        }
        assertThat(bulks[ElasticsearchSinkOptions.Topology.KEYED.ordinal()])
                .as("keyed: one bulk per shard")
                .isEqualTo(shards);
        assertThat(RecordingReporter.sum("docsPredictedAgain"))
                .as("keyed in one JVM: every writer used its documents' predictions from their routers")
                .isZero();
        assertThat(bulks[ElasticsearchSinkOptions.Topology.CHAINED.ordinal()])
                .as("chained: every writer buffers every shard")
                .isEqualTo(shards * 4L);
    }

    /**
     * A 1-shard index (Elasticsearch's default, and a data stream's) at 8 keyed writers: its slot is
     * split over the writers by the id's hash, so every writer gets documents and bulks, and each
     * bulk still touches the one shard. Before, every document went through one writer while seven
     * idled. Bulks leave at the end of input only, so each writer sends its share in one bulk.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.kes.stack.junit.SearchTarget#newest")
    void everyKeyedWriterGetsAShareOfASingleShardIndex(SearchTarget target) throws Exception {
        int writers = 8;
        int docs = 16_000;
        Http http = target.node().http();
        String index = "bulk-one-shard";
        http.send("DELETE", "/" + index + "?ignore_unavailable=true", null);
        http.send(
                        "PUT",
                        "/" + index,
                        "{\"settings\":{\"number_of_shards\":1,\"number_of_replicas\":0},"
                                + "\"mappings\":{\"properties\":{\"n\":{\"type\":\"long\"}}}}")
                .requireOk("create");
        ElasticsearchSink sink = keyedUntilEndOfInput(target, docs);
        SinkPipelines.start(sink, index, docs, docs / 2.0, writers, null)
                .getJobExecutionResult()
                .get();

        assertThat(http.refreshAndCount(index)).isEqualTo(docs);
        assertEveryWriterBusyOnOneShard("1 shard", RecordingReporter.values("bulksSent"), writers);
    }

    /** Keyed writers whose bulks leave at the end of input only: each writer sends its share in one bulk. */
    private static ElasticsearchSink keyedUntilEndOfInput(SearchTarget target, int docs) {
        return ElasticsearchSink.builder()
                .setHosts(target.node().url())
                .setTopology(ElasticsearchSinkOptions.Topology.KEYED)
                .setBulkMaxDocs(docs)
                .setBulkLinger(java.time.Duration.ofSeconds(60))
                .setBulkCoalesce(java.time.Duration.ofSeconds(60))
                .build();
    }

    private static void assertEveryWriterBusyOnOneShard(String what, List<Long> perWriter, int writers) {
        System.out.printf("%s, %d keyed writers: per writer %s%n", what, writers, perWriter);
        assertThat(perWriter)
                .as("every writer busy")
                .hasSize(writers)
                .allSatisfy(n -> assertThat(n).isPositive());
        assertThat(RecordingReporter.max("kes.shardsPerBulk")).isLessThanOrEqualTo(1);
    }

    /**
     * The same for a data stream (Elasticsearch's default of one shard per backing index): the
     * writers key its write index's slot, and each of the 8 sends bulks. Elasticsearch 9.1+, where
     * kes-stack's plugin stands in for the data-streams module the integ-test-zip lacks (which also
     * means no {@code DELETE _data_stream}: each run writes to a data stream of its own).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.kes.stack.junit.SearchTarget#newest")
    void everyKeyedWriterGetsAShareOfASingleShardDataStream(SearchTarget target) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(
                target.engine() == Engine.ELASTICSEARCH && target.node().versionAtLeast(9, 1),
                "data streams in the integ-test-zip: Elasticsearch 9.1+, this is " + target);
        int writers = 8;
        int docs = 16_000;
        Http http = target.node().http();
        String stream =
                "bulk-one-shard-ds-" + java.util.UUID.randomUUID().toString().substring(0, 8);
        http.send(
                        "PUT",
                        "/_index_template/bulk-one-shard-ds",
                        "{\"index_patterns\":[\"bulk-one-shard-ds-*\"],\"data_stream\":{},\"template\":{"
                                + "\"settings\":{\"number_of_shards\":1,\"number_of_replicas\":0},"
                                + "\"mappings\":{\"properties\":{\"n\":{\"type\":\"long\"}}}}}")
                .requireOk("template");
        ElasticsearchSink sink = keyedUntilEndOfInput(target, docs);
        SinkPipelines.start(
                        sink,
                        docs,
                        docs / 2.0,
                        writers,
                        null,
                        i -> DocumentOperation.create(
                                stream,
                                "doc-" + i,
                                ("{\"@timestamp\":\"2026-11-28T00:00:00Z\",\"n\":" + i + "}")
                                        .getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .getJobExecutionResult()
                .get();

        assertThat(http.refreshAndCount(stream)).isEqualTo(docs);
        assertEveryWriterBusyOnOneShard(
                "1-shard data stream, documents",
                RecordingReporter.valuesOfOperator("kes: bulk writer", "numRecordsSend"),
                writers);
    }

    /**
     * Issue 39 item 2: a routing value with three quarters of the documents puts its slot on one
     * keyed writer; once its router has counted it, the slot is split over six writers by the id.
     * Each writer's documents in: none more than two fifths of the whole (before: over three quarters;
     * the first window of each router, a fifth of its documents, goes out unsplit),
     * every document once, every bulk on one shard.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.kes.stack.junit.SearchTarget#newest")
    void aHotRoutingValuesSlotIsSplitOverSeveralKeyedWriters(SearchTarget target) throws Exception {
        int writers = 8;
        int docs = 160_000;
        Http http = target.node().http();
        String index = "bulk-hot-routing";
        http.send("DELETE", "/" + index + "?ignore_unavailable=true", null);
        http.send(
                        "PUT",
                        "/" + index,
                        "{\"settings\":{\"number_of_shards\":8,\"number_of_replicas\":0},"
                                + "\"mappings\":{\"properties\":{\"n\":{\"type\":\"long\"}}}}")
                .requireOk("create");
        ElasticsearchSink sink = ElasticsearchSink.builder()
                .setHosts(target.node().url())
                .setTopology(ElasticsearchSinkOptions.Topology.KEYED)
                .build();
        SinkPipelines.start(
                        sink,
                        docs,
                        0,
                        writers,
                        null,
                        i -> DocumentOperation.write(OpType.INDEX, index)
                                .id("doc-" + i)
                                .routing(i % 4 == 3 ? null : "hot")
                                .source(("{\"n\":" + i + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8))
                                .idUnique(true)
                                .build())
                .getJobExecutionResult()
                .get();

        assertThat(http.refreshAndCount(index)).isEqualTo(docs);
        List<Long> docsPerWriter = RecordingReporter.valuesOfOperator("kes: bulk writer", "numRecordsSend");
        System.out.printf(
                "8 shards, a routing value with 3/4 of the documents: documents per writer %s%n", docsPerWriter);
        assertThat(docsPerWriter)
                .as("documents per writer")
                .hasSize(writers)
                .allSatisfy(n -> assertThat(n).isPositive().isLessThan(docs * 2 / 5));
        assertThat(RecordingReporter.max("kes.shardsPerBulk")).isLessThanOrEqualTo(1);
    }

    private record Ratio(long bulkRequests, long shardOperations) {}

    private static Ratio run(SearchNode es, String index, boolean grouping) throws Exception {
        Http http = es.http();
        http.send("DELETE", "/" + index + "?ignore_unavailable=true", null);
        // the mapping up front: a dynamic mapping update re-runs a shard's bulk, which OpenSearch's count would see
        // twice
        http.send(
                        "PUT",
                        "/" + index,
                        "{\"settings\":{\"number_of_shards\":6,\"number_of_replicas\":0},"
                                + "\"mappings\":{\"properties\":{\"n\":{\"type\":\"long\"}}}}")
                .requireOk("create");
        boolean openSearch = es.engine() == Engine.OPENSEARCH;
        long requestsBefore = openSearch ? 0 : bulkRequests(http);
        long writeTasksBefore = openSearch ? writeTasks(http) : 0;
        ElasticsearchSink sink = ElasticsearchSink.builder()
                .setHosts(es.url())
                .setShardGrouping(grouping)
                .build();
        SinkPipelines.run(sink, index, DOCS, 2);
        long requests = openSearch ? RecordingReporter.sum("bulksSent") : bulkRequests(http) - requestsBefore;
        long shardOperations = openSearch
                ? writeTasks(http) - writeTasksBefore
                : JSON.readTree(http.get("/" + index + "/_stats/bulk")
                                .requireOk("stats")
                                .body())
                        .path("_all")
                        .path("primaries")
                        .path("bulk")
                        .path("total_operations")
                        .asLong();
        assertThat(http.refreshAndCount(index)).isEqualTo(DOCS);
        System.out.printf(
                "%s: %d bulk requests, %d shard-level bulk operations (%.2f shards per bulk)%n",
                index, requests, shardOperations, (double) shardOperations / requests);
        return new Ratio(requests, shardOperations);
    }

    /** Tasks the node's write thread pool completed: one per shard-level bulk (OpenSearch has no {@code _stats/bulk}). */
    private static long writeTasks(Http http) throws Exception {
        long total = 0;
        for (JsonNode node : JSON.readTree(http.get("/_nodes/stats/thread_pool")
                        .requireOk("thread pool stats")
                        .body())
                .path("nodes")) {
            total += node.path("thread_pool").path("write").path("completed").asLong();
        }
        return total;
    }

    /** {@code _bulk} HTTP requests the node has answered, over all bulk routes. */
    private static long bulkRequests(Http http) throws Exception {
        long total = 0;
        JsonNode nodes = JSON.readTree(
                        http.get("/_nodes/stats/http").requireOk("http stats").body())
                .path("nodes");
        for (JsonNode node : nodes) {
            JsonNode routes = node.path("http").path("routes");
            for (String route : new String[] {"/_bulk", "/{index}/_bulk"}) {
                total += routes.path(route).path("requests").path("count").asLong();
            }
        }
        return total;
    }
}
