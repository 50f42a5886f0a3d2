package io.kes.connector;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.stack.Http;
import io.kes.stack.SearchCluster;
import io.kes.stack.StackLayout;
import io.kes.stack.junit.SearchTarget;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * On a real three-node cluster, with only one node in {@code elasticsearch.hosts}: each
 * single-shard bulk goes to the node that holds its shard's primary, so that no node forwards it.
 * Counted on the nodes: {@code _bulk} HTTP requests each node received, against the shard-level
 * bulk operations on the primaries it holds. OpenSearch counts no HTTP requests per route: there
 * the same is counted in bytes ({@code indexing_pressure}: what each node coordinated, against
 * what it indexed as primary). On the newest line of each engine: each needs a 3-node cluster.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("io.kes.stack.junit.SearchTarget#newest")
class PrimaryNodeRoutingIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int DOCS = 60_000;
    private static SearchCluster cluster;
    private static SearchTarget clusterTarget;
    /** Whether the nodes count {@code _bulk} requests per route (Elasticsearch) or only bytes (OpenSearch). */
    private static boolean routeStats;

    @Parameter
    SearchTarget target;

    /** One cluster per target, for all the tests of that target (they run one target after the other). */
    @BeforeEach
    void startCluster() throws Exception {
        if (target.equals(clusterTarget)) {
            return;
        }
        stopCluster();
        Path dir = StackLayout.fromBuild()
                .runDir()
                .resolve("primary-routing-" + target.engine().command() + "-"
                        + ProcessHandle.current().pid());
        clusterTarget = target;
        cluster = SearchCluster.start(
                target.engine(), "kes-it-3n", 3, dir, "pn", "512m", target.version(), java.util.Map.of(), node -> {});
        routeStats = !json("/_nodes/stats/http")
                .path("nodes")
                .elements()
                .next()
                .path("http")
                .path("routes")
                .isMissingNode();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }

    @Test
    void bulksGoToTheNodeHoldingTheirShardsPrimaryEvenWhenOnlyOneNodeIsConfigured() throws Exception {
        Map<String, long[]> byNode = write("to-primaries", true);
        if (!routeStats) {
            long elsewhere = 0;
            long direct = 0;
            for (Map.Entry<String, long[]> node : byNode.entrySet()) {
                if (!node.getKey().equals("pn1")) {
                    elsewhere += node.getValue()[3];
                    direct += Math.min(node.getValue()[2], node.getValue()[3]);
                }
            }
            assertThat(elsewhere)
                    .as("bytes indexed on primaries outside the configured node")
                    .isPositive();
            assertThat(direct)
                    .as("of those %d bytes, bytes the primary's node received straight from kes", elsewhere)
                    .isGreaterThanOrEqualTo(elsewhere * 3 / 4);
            assertThat(RecordingReporter.sum("kes.bulksToPrimaryNode")).isPositive();
            return;
        }

        long direct = 0;
        long shardOps = 0;
        for (Map.Entry<String, long[]> node : byNode.entrySet()) {
            long bulks = node.getValue()[0];
            long ops = node.getValue()[1];
            shardOps += ops;
            if (!node.getKey().equals("pn1")) {
                assertThat(bulks)
                        .as("bulks %s received, all for its own primaries", node.getKey())
                        .isLessThanOrEqualTo(ops);
                direct += bulks;
            }
        }
        long elsewhere = shardOps - byNode.get("pn1")[1];
        assertThat(elsewhere)
                .as("shard-level bulks on primaries outside the configured node")
                .isPositive();
        // The first bulks of each shard go to the configured node while the primaries are located.
        assertThat(direct)
                .as("of those %d, bulks that went straight to the primary's node", elsewhere)
                .isGreaterThanOrEqualTo(elsewhere * 3 / 4);
        assertThat(RecordingReporter.sum("kes.bulksToPrimaryNode")).isPositive();
    }

    @Test
    void withPrimaryNodeRoutingOffEveryBulkGoesToTheConfiguredNode() throws Exception {
        Map<String, long[]> byNode = write("to-configured", false);

        int counted = routeStats ? 0 : 2; // bulks, or bytes coordinated
        assertThat(byNode.get("pn2")[counted] + byNode.get("pn3")[counted])
                .as("bulks the other nodes received")
                .isZero();
        assertThat(byNode.get("pn1")[counted]).isPositive();
    }

    /**
     * Writes DOCS documents into a fresh 6-shard index through node pn1; per node: [_bulk requests
     * received, shard-level bulks on its primaries, bytes it coordinated, bytes it indexed as primary].
     */
    private static Map<String, long[]> write(String index, boolean primaryNodeRouting) throws Exception {
        Http http = cluster.http();
        http.send("PUT", "/" + index, "{\"settings\":{\"number_of_shards\":6,\"number_of_replicas\":0}}")
                .requireOk("create");
        http.get("/_cluster/health/" + index + "?wait_for_status=green&timeout=60s")
                .requireOk("health");
        Map<String, Long> bulksBefore = bulkRequestsByNode();
        Map<String, long[]> bytesBefore = indexingBytesByNode();
        ElasticsearchSink sink = ElasticsearchSink.builder()
                .setHosts(cluster.nodes().get(0).url())
                .setBulkMaxDocs(200)
                .set(ElasticsearchSinkOptions.PRIMARY_NODE_ROUTING, primaryNodeRouting)
                .build();

        SinkPipelines.run(sink, index, DOCS, 2);

        assertThat(http.refreshAndCount(index)).isEqualTo(DOCS);
        Map<String, long[]> byNode = new HashMap<>();
        bulkRequestsByNode()
                .forEach((node, count) ->
                        byNode.put(node, new long[] {count - bulksBefore.getOrDefault(node, 0L), 0, 0, 0}));
        indexingBytesByNode().forEach((node, bytes) -> {
            long[] before = bytesBefore.getOrDefault(node, new long[2]);
            byNode.get(node)[2] = bytes[0] - before[0];
            byNode.get(node)[3] = bytes[1] - before[1];
        });
        if (!routeStats) {
            return byNode; // OpenSearch has no _stats/bulk: its tests count bytes
        }
        JsonNode shards = json("/" + index + "/_stats/bulk?level=shards")
                .path("indices")
                .path(index)
                .path("shards");
        Map<String, String> names = nodeNames();
        shards.forEach(copies -> copies.forEach(copy -> {
            if (copy.path("routing").path("primary").asBoolean()) {
                byNode.get(names.get(copy.path("routing").path("node").asText()))[1] +=
                        copy.path("bulk").path("total_operations").asLong();
            }
        }));
        return byNode;
    }

    /** Node name → {@code _bulk} HTTP requests it received so far. */
    private static Map<String, Long> bulkRequestsByNode() throws Exception {
        Map<String, Long> counts = new HashMap<>();
        json("/_nodes/stats/http").path("nodes").forEach(node -> {
            JsonNode routes = node.path("http").path("routes");
            counts.put(
                    node.path("name").asText(),
                    routes.path("/_bulk").path("requests").path("count").asLong()
                            + routes.path("/{index}/_bulk")
                                    .path("requests")
                                    .path("count")
                                    .asLong());
        });
        return counts;
    }

    /** Node name → [bytes it coordinated, bytes it indexed as primary] so far ({@code indexing_pressure}, both engines). */
    private static Map<String, long[]> indexingBytesByNode() throws Exception {
        Map<String, long[]> bytes = new HashMap<>();
        json("/_nodes/stats/indexing_pressure").path("nodes").forEach(node -> {
            JsonNode total = node.path("indexing_pressure").path("memory").path("total");
            bytes.put(node.path("name").asText(), new long[] {
                total.path("coordinating_in_bytes").asLong(),
                total.path("primary_in_bytes").asLong()
            });
        });
        return bytes;
    }

    private static Map<String, String> nodeNames() throws Exception {
        Map<String, String> names = new HashMap<>();
        json("/_nodes")
                .path("nodes")
                .properties()
                .forEach(e -> names.put(e.getKey(), e.getValue().path("name").asText()));
        return names;
    }

    private static JsonNode json(String path) throws Exception {
        return JSON.readTree(cluster.http().get(path).requireOk("GET " + path).body());
    }
}
