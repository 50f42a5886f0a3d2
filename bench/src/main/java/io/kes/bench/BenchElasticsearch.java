package io.kes.bench;

import io.kes.connector.cluster.ClusterMetadataClient;
import io.kes.connector.routing.IndexRouting;
import io.kes.connector.routing.IndexRoutingTable;
import io.kes.stack.Http;
import java.io.IOException;
import java.net.URI;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.http.HttpHost;
import org.elasticsearch.client.RestClient;

/** What every scenario asks of the Elasticsearch under test: fresh indices, their routing, its major version. */
final class BenchElasticsearch {

    private BenchElasticsearch() {}

    /** A fresh index: 6 shards, no replicas, no refreshes during the load, the given translog durability. */
    static void createIndex(Http es, String index, String durability) throws IOException {
        createIndex(es, index, durability, Bench.SHARDS);
    }

    /** The same with {@code shards} primaries (the many-shards setups of the users-path scenario). */
    static void createIndex(Http es, String index, String durability, int shards) throws IOException {
        es.send("DELETE", "/" + index, null);
        es.send(
                        "PUT",
                        "/" + index,
                        "{\"settings\":{\"number_of_shards\":" + shards + ",\"number_of_replicas\":0,"
                                + "\"refresh_interval\":\"-1\",\"translog.durability\":\"" + durability + "\"}}")
                .requireOk("creating " + index);
        es.get("/_cluster/health/" + index + "?wait_for_status=green&timeout=60s")
                .requireOk("health of " + index);
    }

    /** How a fresh 6-shard index routes on this cluster, calibrated by the connector's own routing table. */
    static IndexRouting routingOf(Http es, String url, String probeIndex, String durability) throws IOException {
        return routingOf(es, url, probeIndex, durability, Bench.SHARDS);
    }

    /** How a fresh index of {@code shards} primaries routes. */
    static IndexRouting routingOf(Http es, String url, String probeIndex, String durability, int shards)
            throws IOException {
        createIndex(es, probeIndex, durability, shards);
        URI u = URI.create(url);
        try (RestClient client = RestClient.builder(new HttpHost(u.getHost(), u.getPort(), u.getScheme()))
                .build()) {
            IndexRoutingTable table =
                    new IndexRoutingTable(new ClusterMetadataClient(client), System::currentTimeMillis);
            return table.routingFor(probeIndex)
                    .orElseThrow(() -> new IllegalStateException("routing of " + probeIndex + " is not predictable"));
        } finally {
            es.send("DELETE", "/" + probeIndex, null);
        }
    }

    static int esMajor(Http es) throws IOException {
        // not GET /: the integ-test-zip distribution has no root endpoint
        String path = "/_nodes/_local?filter_path=nodes.*.version";
        Matcher m = Pattern.compile("\"version\"\\s*:\\s*\"(\\d+)\\.")
                .matcher(es.get(path).requireOk("GET " + path).body());
        if (!m.find()) {
            throw new IllegalStateException("no version number in GET " + path);
        }
        return Integer.parseInt(m.group(1));
    }
}
