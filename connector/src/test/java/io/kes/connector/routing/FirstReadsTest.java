package io.kes.connector.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.DocumentOperation;
import io.kes.connector.OpType;
import io.kes.connector.cluster.ClusterMetadataClient;
import io.kes.connector.testing.CannedElasticsearch;
import io.kes.connector.testing.CannedElasticsearch.Answer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A predictor shared by the routers and writers of a sink in one JVM: the first read of a name
 * (a daily index, a {@code {tenant}} index: about ten metadata calls) holds up only the documents
 * of that name, not every task predicting for names already known.
 */
class FirstReadsTest {

    private static String oneShard(String name) {
        return "{\"metadata\":{\"indices\":{\"" + name + "\":{\"settings\":{\"index\":{\"number_of_shards\":\"1\","
                + "\"uuid\":\"u-" + name + "\"}},\"routing_num_shards\":1,\"primary_terms\":{\"0\":1}}}}}";
    }

    /**
     * Issue 66 item 3: the first read of a name ran inside the predictor's lock, so a slow node
     * answering it (up to the socket timeout per call) stalled every router of the TaskManager.
     */
    @Test
    void aSlowFirstReadOfOneNameHoldsUpOnlyThatNamesDocuments() throws Exception {
        CountDownLatch readingA = new CountDownLatch(1);
        CountDownLatch answerA = new CountDownLatch(1);
        List<String> asked = new CopyOnWriteArrayList<>();
        try (CannedElasticsearch es = new CannedElasticsearch(
                path -> {
                    asked.add(path);
                    if (path.equals("/_cluster/state/metadata/a")) {
                        readingA.countDown();
                        try {
                            answerA.await(60, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return Answer.ok(oneShard("a"));
                    }
                    return path.equals("/_cluster/state/metadata/b") ? Answer.ok(oneShard("b")) : null;
                },
                new Answer(404, "{}"))) {
            AtomicLong clock = new AtomicLong(1_000_000);
            ShardPredictor predictor =
                    new ShardPredictor(new IndexRoutingTable(new ClusterMetadataClient(es.client()), clock::get));
            assertThat(predictor.predict(DocumentOperation.delete("b", "1")).knowsShard())
                    .isTrue();

            CompletableFuture<PredictedShard> firstOfA =
                    CompletableFuture.supplyAsync(() -> predictor.predict(DocumentOperation.delete("a", "1")));
            assertThat(readingA.await(30, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<PredictedShard> secondOfA =
                    CompletableFuture.supplyAsync(() -> predictor.predict(DocumentOperation.delete("a", "2")));

            CountDownLatch predictedB = new CountDownLatch(1);
            CompletableFuture.runAsync(() -> {
                predictor.predict(DocumentOperation.delete("b", "2"));
                predictedB.countDown();
            });
            assertThat(predictedB.await(20, TimeUnit.SECONDS))
                    .as("b is known: its documents go on while a's first read waits for the node")
                    .isTrue();
            assertThat(firstOfA).isNotDone();
            assertThat(secondOfA)
                    .as("a's other documents wait for the same read")
                    .isNotDone();

            answerA.countDown();
            assertThat(firstOfA.get(30, TimeUnit.SECONDS).knowsShard())
                    .as("once read, a's documents keep their single-shard prediction")
                    .isTrue();
            assertThat(secondOfA.get(30, TimeUnit.SECONDS).knowsShard()).isTrue();
            assertThat(asked)
                    .as("one read of a, whichever task asked")
                    .filteredOn("/_cluster/state/metadata/a"::equals)
                    .hasSize(1);
        }
    }

    /** The same for the first read of an ingest pipeline that documents of a known index name. */
    @Test
    void aSlowFirstReadOfAPipelineHoldsUpOnlyTheDocumentsNamingIt() throws Exception {
        CountDownLatch readingPipeline = new CountDownLatch(1);
        CountDownLatch answerPipeline = new CountDownLatch(1);
        try (CannedElasticsearch es = new CannedElasticsearch(
                path -> {
                    if (path.equals("/_ingest/pipeline/slow")) {
                        readingPipeline.countDown();
                        try {
                            answerPipeline.await(60, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return Answer.ok("{\"slow\":{\"processors\":[{\"set\":{\"field\":\"seen\",\"value\":true}}]}}");
                    }
                    return path.equals("/_cluster/state/metadata/b") ? Answer.ok(oneShard("b")) : null;
                },
                new Answer(404, "{}"))) {
            AtomicLong clock = new AtomicLong(1_000_000);
            ShardPredictor predictor =
                    new ShardPredictor(new IndexRoutingTable(new ClusterMetadataClient(es.client()), clock::get));
            predictor.predict(DocumentOperation.delete("b", "1"));

            CompletableFuture<PredictedShard> throughPipeline =
                    CompletableFuture.supplyAsync(() -> predictor.predict(DocumentOperation.write(OpType.INDEX, "b")
                            .id("2")
                            .source("{}".getBytes(java.nio.charset.StandardCharsets.UTF_8))
                            .pipeline("slow")
                            .build()));
            assertThat(readingPipeline.await(30, TimeUnit.SECONDS)).isTrue();
            CountDownLatch predicted = new CountDownLatch(1);
            CompletableFuture.runAsync(() -> {
                predictor.predict(DocumentOperation.delete("b", "3"));
                predicted.countDown();
            });
            assertThat(predicted.await(20, TimeUnit.SECONDS))
                    .as("documents naming no pipeline go on while the pipeline is read")
                    .isTrue();
            assertThat(throughPipeline).isNotDone();

            answerPipeline.countDown();
            assertThat(throughPipeline.get(30, TimeUnit.SECONDS).knowsShard())
                    .as("the pipeline only enriches: single-shard")
                    .isTrue();
        }
    }
}
