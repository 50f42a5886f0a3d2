package io.kes.connector;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.Http;
import io.kes.stack.junit.ElasticsearchExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Server-side proof: Elasticsearch counts shard-level bulk operations per index
 * ({@code _stats/bulk}) and {@code _bulk} HTTP requests per node ({@code _nodes/stats/http}). With
 * shard grouping the two are equal (every bulk touched one shard); without, each bulk touches
 * about every shard.
 */
@ExtendWith(ElasticsearchExtension.class)
class SingleShardBulksIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int DOCS = 30_000;

    @Test
    void everyBulkTouchesExactlyOneShardWithGrouping(ElasticsearchNode es) throws Exception {
        Ratio ratio = run(es, "single-shard-bulks", true);
        assertThat(ratio.bulkRequests).isGreaterThan(DOCS / 1000);
        assertThat(ratio.shardOperations).isEqualTo(ratio.bulkRequests);
        assertThat(RecordingReporter.max("kes.shardsPerBulk")).isLessThanOrEqualTo(1);
    }

    @Test
    void mixedBulksTouchAboutEveryShardWithoutGrouping(ElasticsearchNode es) throws Exception {
        Ratio ratio = run(es, "mixed-bulks", false);
        assertThat((double) ratio.shardOperations / ratio.bulkRequests).isGreaterThan(5.0);
    }

    private record Ratio(long bulkRequests, long shardOperations) {}

    private static Ratio run(ElasticsearchNode es, String index, boolean grouping) throws Exception {
        Http http = es.http();
        http.send("DELETE", "/" + index + "?ignore_unavailable=true", null);
        http.send("PUT", "/" + index, "{\"settings\":{\"number_of_shards\":6,\"number_of_replicas\":0}}").requireOk("create");
        long requestsBefore = bulkRequests(http);
        ElasticsearchSink sink = ElasticsearchSink.builder().setHosts(es.url()).setShardGrouping(grouping).build();
        SinkPipelines.run(sink, index, DOCS, 2);
        long requests = bulkRequests(http) - requestsBefore;
        long shardOperations = JSON.readTree(http.get("/" + index + "/_stats/bulk").requireOk("stats").body())
                .path("_all").path("primaries").path("bulk").path("total_operations").asLong();
        assertThat(http.refreshAndCount(index)).isEqualTo(DOCS);
        System.out.printf("%s: %d bulk requests, %d shard-level bulk operations (%.2f shards per bulk)%n",
                index, requests, shardOperations, (double) shardOperations / requests);
        return new Ratio(requests, shardOperations);
    }

    /** {@code _bulk} HTTP requests the node has answered, over all bulk routes. */
    private static long bulkRequests(Http http) throws Exception {
        long total = 0;
        JsonNode nodes = JSON.readTree(http.get("/_nodes/stats/http").requireOk("http stats").body()).path("nodes");
        for (JsonNode node : nodes) {
            JsonNode routes = node.path("http").path("routes");
            for (String route : new String[] {"/_bulk", "/{index}/_bulk"}) {
                total += routes.path(route).path("requests").path("count").asLong();
            }
        }
        return total;
    }
}
