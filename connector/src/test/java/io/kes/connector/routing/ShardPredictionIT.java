package io.kes.connector.routing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.connector.cluster.ClusterMetadataClient;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.Http;
import io.kes.stack.SearchNode;
import io.kes.stack.SharedServers;
import io.kes.stack.junit.SearchTarget;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.http.HttpHost;
import org.elasticsearch.client.RestClient;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The router's prediction against the server itself, on Elasticsearch 8.19 and 9.x and OpenSearch
 * 2.19 and 3.x: documents are indexed by the server (which routes them), then found shard by shard with
 * {@code preference=_shards:N}; every one must sit where {@link IndexRoutingTable} predicted.
 */
class ShardPredictionIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int DOCS = 2000;

    static Stream<Arguments> layouts() {
        List<Arguments> args = new ArrayList<>();
        SearchTarget.newestOrAll().forEach(target -> {
            for (int shards : new int[] {1, 3, 5, 8, 12}) {
                args.add(Arguments.of(target, shards, false, 1));
            }
            args.add(Arguments.of(target, 5, true, 1)); // custom routing
            args.add(Arguments.of(target, 6, true, 3)); // routing_partition_size > 1
        });
        return args.stream();
    }

    @ParameterizedTest(name = "{0}: {1} shards, custom routing {2}, partition size {3}")
    @MethodSource("layouts")
    void everyDocumentLandsOnThePredictedShard(
            SearchTarget target, int shards, boolean customRouting, int partitionSize) throws Exception {
        SearchNode node = target.node();
        Http http = node.http();
        String index = ("predict-" + shards + "-" + customRouting + "-" + partitionSize).toLowerCase();
        http.send("DELETE", "/" + index + "?ignore_unavailable=true", null);
        String partition = partitionSize > 1 ? ",\"routing_partition_size\":" + partitionSize : "";
        String mapping = partitionSize > 1 ? ",\"mappings\":{\"_routing\":{\"required\":true}}" : "";
        http.send(
                        "PUT",
                        "/" + index,
                        "{\"settings\":{\"number_of_shards\":" + shards + ",\"number_of_replicas\":0" + partition + "}"
                                + mapping + "}")
                .requireOk("create " + index);

        Random random = new Random(shards * 31L + partitionSize);
        Map<String, String> routingById = new HashMap<>();
        StringBuilder bulk = new StringBuilder();
        for (int i = 0; i < DOCS; i++) {
            String id = randomId(random, i);
            String routing = customRouting ? "user-" + random.nextInt(500) + (i % 7 == 0 ? "-ü😀" : "") : null;
            routingById.put(id, routing);
            bulk.append("{\"index\":{\"_index\":")
                    .append(JSON.writeValueAsString(index))
                    .append(",\"_id\":")
                    .append(JSON.writeValueAsString(id));
            if (routing != null) {
                bulk.append(",\"routing\":").append(JSON.writeValueAsString(routing));
            }
            bulk.append("}}\n{\"n\":").append(i).append("}\n");
        }
        Http.Response bulkResponse = http.send("POST", "/_bulk?refresh=true&filter_path=errors", bulk.toString())
                .requireOk("bulk");
        assertThat(bulkResponse.body()).contains("\"errors\":false");

        IndexRouting routing;
        try (RestClient client = RestClient.builder(HttpHost.create(node.url())).build()) {
            routing = new IndexRoutingTable(new ClusterMetadataClient(client), System::currentTimeMillis)
                    .routingFor(index)
                    .orElseThrow(() -> new AssertionError("no routing predicted for " + index));
        }
        assertThat(routing.numberOfShards()).isEqualTo(shards);

        int checked = 0;
        List<String> wrong = new ArrayList<>();
        for (int shard = 0; shard < shards; shard++) {
            JsonNode hits = JSON.readTree(http.get("/" + index + "/_search?preference=_shards:" + shard
                                    + "&size=10000&_source=false&filter_path=hits.hits._id")
                            .requireOk("search shard " + shard)
                            .body())
                    .path("hits")
                    .path("hits");
            for (JsonNode hit : hits) {
                String id = hit.path("_id").asText();
                int predicted = routing.shardOf(id, routingById.get(id));
                checked++;
                if (predicted != shard) {
                    wrong.add(id + " (routing " + routingById.get(id) + "): on " + shard + ", predicted " + predicted);
                }
            }
        }
        assertThat(checked).isEqualTo(DOCS);
        assertThat(wrong)
                .as("documents not on the predicted shard (%s)", routing)
                .isEmpty();
    }

    /**
     * A prediction is made against one index, not one name: an index deleted and re-created under
     * the same name with another shard count gets a new layout (new uuid, new generation, new
     * shard count) once its entry expires, and names nobody asks for are forgotten.
     */
    @org.junit.jupiter.api.Test
    void aReCreatedIndexGetsANewLayoutAndUnusedNamesAreForgotten() throws Exception {
        ElasticsearchNode node = SharedServers.elasticsearch();
        Http http = node.http();
        String index = "predict-recreated";
        http.send("DELETE", "/" + index + "?ignore_unavailable=true", null);
        http.send("PUT", "/" + index, "{\"settings\":{\"number_of_shards\":3,\"number_of_replicas\":0}}")
                .requireOk("create");
        long[] clock = {0};
        try (RestClient client = RestClient.builder(HttpHost.create(node.url())).build()) {
            IndexRoutingTable table = new IndexRoutingTable(new ClusterMetadataClient(client), () -> clock[0]);
            IndexLayout before = table.layoutFor(index).orElseThrow();
            assertThat(before.numberOfShards()).isEqualTo(3);

            http.send("DELETE", "/" + index, null).requireOk("delete");
            http.send("PUT", "/" + index, "{\"settings\":{\"number_of_shards\":6,\"number_of_replicas\":0}}")
                    .requireOk("re-create");
            assertThat(table.layoutFor(index).orElseThrow())
                    .as("cached until the entry expires")
                    .isSameAs(before);
            clock[0] += TargetNames.INDEX_TTL_MILLIS;
            IndexLayout after = table.layoutFor(index).orElseThrow();
            assertThat(after.uuid()).isNotEqualTo(before.uuid());
            assertThat(after.numberOfShards()).isEqualTo(6);
            assertThat(after.generation()).isNotSameAs(before.generation());
            assertThat(after.routing().numberOfShards()).isEqualTo(6);

            clock[0] += TargetNames.INDEX_TTL_MILLIS;
            assertThat(table.layoutFor(index).orElseThrow().generation())
                    .as("same index, same calibration")
                    .isSameAs(after.generation());

            for (int day = 1; day <= 5; day++) {
                table.layoutFor("predict-missing-2026.11." + day); // date-named indices that come and go
            }
            assertThat(table.size()).isEqualTo(6);
            clock[0] += IndexRoutingTable.FORGET_AFTER_MILLIS + 120_000;
            table.layoutFor(index);
            assertThat(table.size()).as("only the name still in use").isEqualTo(1);
        }
    }

    /**
     * Given a refresher, an expired name is read again there while its last layout stays in use
     * (the writer's thread must not wait on a node that stopped answering), one read at a time; the
     * next lookup after the read finished takes what it found: here, the alias's new write index.
     */
    @org.junit.jupiter.api.Test
    void aKnownNameIsReadAgainOnTheRefresherWhileItsLastLayoutStaysInUse() throws Exception {
        ElasticsearchNode node = SharedServers.elasticsearch();
        Http http = node.http();
        for (String index : List.of("predict-refreshed-1", "predict-refreshed-2")) {
            http.send("DELETE", "/" + index + "?ignore_unavailable=true", null);
            http.send("PUT", "/" + index, "{\"settings\":{\"number_of_shards\":3,\"number_of_replicas\":0}}")
                    .requireOk("create");
        }
        http.send(
                        "POST",
                        "/_aliases",
                        "{\"actions\":[{\"add\":{\"index\":\"predict-refreshed-1\",\"alias\":\"predict-refreshed\","
                                + "\"is_write_index\":true}}]}")
                .requireOk("alias");
        long[] clock = {0};
        List<Runnable> refresher = new java.util.ArrayList<>();
        try (RestClient client = RestClient.builder(HttpHost.create(node.url())).build()) {
            IndexRoutingTable table =
                    new IndexRoutingTable(new ClusterMetadataClient(client), () -> clock[0], refresher::add);
            IndexLayout before = table.layoutFor("predict-refreshed").orElseThrow();
            assertThat(before.index()).isEqualTo("predict-refreshed-1");
            assertThat(refresher)
                    .as("a name never seen is read on the caller's thread")
                    .isEmpty();

            http.send(
                            "POST",
                            "/_aliases",
                            "{\"actions\":[{\"add\":{\"index\":\"predict-refreshed-1\",\"alias\":\"predict-refreshed\","
                                    + "\"is_write_index\":false}},{\"add\":{\"index\":\"predict-refreshed-2\",\"alias\":\"predict-refreshed\","
                                    + "\"is_write_index\":true}}]}")
                    .requireOk("roll over");
            clock[0] += TargetNames.ALIAS_TTL_MILLIS;
            assertThat(table.layoutFor("predict-refreshed").orElseThrow())
                    .as("expired, read in the background")
                    .isSameAs(before);
            assertThat(table.layoutFor("predict-refreshed").orElseThrow()).isSameAs(before);
            assertThat(refresher).as("one read at a time").hasSize(1);

            refresher.remove(0).run();
            assertThat(table.layoutFor("predict-refreshed").orElseThrow().index())
                    .isEqualTo("predict-refreshed-2");
            assertThat(refresher).isEmpty();
        }
    }

    /**
     * The response-side check: a document predicted for a shard of a concrete index but stored in
     * another index was moved (by a pipeline): the index loses its routing (a new generation, any
     * shard from then on) and counts unpredictable. A write to an alias that lands in the alias's
     * new write index is a rollover, not a move.
     */
    @org.junit.jupiter.api.Test
    void aDocumentStoredInAnotherIndexThanPredictedTurnsItsIndexsRoutingOffButARolloverDoesNot() throws Exception {
        ElasticsearchNode node = SharedServers.elasticsearch();
        Http http = node.http();
        for (String index : List.of("predict-moved", "predict-rolled-1", "predict-rolled-2")) {
            http.send("DELETE", "/" + index + "?ignore_unavailable=true", null);
            http.send("PUT", "/" + index, "{\"settings\":{\"number_of_shards\":3,\"number_of_replicas\":0}}")
                    .requireOk("create");
        }
        http.send(
                        "POST",
                        "/_aliases",
                        "{\"actions\":[{\"add\":{\"index\":\"predict-rolled-1\",\"alias\":\"predict-rolled\","
                                + "\"is_write_index\":true}}]}")
                .requireOk("alias");
        long[] clock = {0};
        try (RestClient client = RestClient.builder(HttpHost.create(node.url())).build()) {
            IndexRoutingTable table = new IndexRoutingTable(new ClusterMetadataClient(client), () -> clock[0]);
            ShardPredictor predictor = new ShardPredictor(table);

            io.kes.connector.DocumentOperation toAlias =
                    io.kes.connector.DocumentOperation.index("predict-rolled", "a", "{}");
            PredictedShard aliasPrediction = predictor.predict(toAlias);
            assertThat(aliasPrediction.knowsShard()).isTrue();
            http.send(
                            "POST",
                            "/_aliases",
                            "{\"actions\":[{\"add\":{\"index\":\"predict-rolled-1\",\"alias\":\"predict-rolled\","
                                    + "\"is_write_index\":false}},{\"add\":{\"index\":\"predict-rolled-2\",\"alias\":\"predict-rolled\","
                                    + "\"is_write_index\":true}}]}")
                    .requireOk("roll over");
            assertThat(predictor.movedByPipeline(toAlias, aliasPrediction, "predict-rolled-2"))
                    .as("a rollover")
                    .isFalse();

            io.kes.connector.DocumentOperation doc =
                    io.kes.connector.DocumentOperation.index("predict-moved", "b", "{}");
            PredictedShard predicted = predictor.predict(doc);
            assertThat(predicted.knowsShard()).isTrue();
            assertThat(predictor.movedByPipeline(doc, predicted, "predict-moved"))
                    .as("stored where predicted")
                    .isFalse();
            assertThat(predictor.movedByPipeline(doc, predicted, "elsewhere"))
                    .as("stored in another index")
                    .isTrue();
            assertThat(predictor.unpredictableIndices()).isEqualTo(1);
            PredictedShard after =
                    predictor.predict(io.kes.connector.DocumentOperation.index("predict-moved", "c", "{}"));
            assertThat(after.knowsShard()).as("any shard from then on").isFalse();
            assertThat(after.layout().generation())
                    .isNotSameAs(predicted.layout().generation());
            clock[0] += TargetNames.INDEX_TTL_MILLIS * 3;
            assertThat(predictor.predict(doc).knowsShard())
                    .as("still any shard after the index is read again")
                    .isFalse();
        }
    }

    /** Unique ASCII, accented, CJK and emoji (surrogate pair) ids. */
    private static String randomId(Random random, int i) {
        return i + ":"
                + switch (i % 5) {
                    case 0 -> Long.toString(random.nextLong(), 36);
                    case 1 -> "doc-é-" + random.nextInt(1_000_000);
                    case 2 -> "文档" + random.nextInt(1_000_000);
                    case 3 -> "😀" + random.nextInt(1_000_000) + "🚀";
                    default ->
                        java.util
                                .UUID
                                .nameUUIDFromBytes(
                                        Long.toString(random.nextLong()).getBytes())
                                .toString();
                };
    }
}
