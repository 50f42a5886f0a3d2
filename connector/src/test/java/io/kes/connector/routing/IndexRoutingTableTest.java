package io.kes.connector.routing;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.kes.connector.cluster.ClusterMetadataClient;
import io.kes.connector.cluster.IndexMetadata;
import io.kes.connector.fence.AcknowledgedWrites;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.apache.http.HttpHost;
import org.elasticsearch.client.RestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The routing table on canned answers in the shapes Elasticsearch gives a user without the index
 * privilege {@code view_index_metadata}: {@code _cluster/state} (cluster {@code monitor}) answers,
 * {@code _settings} and {@code _search_shards} answer 403.
 */
class IndexRoutingTableTest {

    /** Two shards with unequal primary terms, as after a node restart moved one primary. */
    private static final String METADATA = "{\"metadata\":{\"indices\":{\"idx\":{\"settings\":{\"index\":{\"number_of_shards\":\"2\","
            + "\"uuid\":\"u1\"}},\"routing_num_shards\":2,\"primary_terms\":{\"0\":1,\"1\":3}}}}}";
    private static final String REFUSED = "{\"error\":{\"type\":\"security_exception\",\"reason\":\"action [indices:admin/get] is "
            + "unauthorized for user [kes]\"},\"status\":403}";

    private HttpServer server;
    private RestClient client;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            boolean metadata = exchange.getRequestURI().getPath().equals("/_cluster/state/metadata/idx");
            byte[] bytes = (metadata ? METADATA : REFUSED).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(metadata ? 200 : 403, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        server.start();
        client = RestClient.builder(new HttpHost("127.0.0.1", server.getAddress().getPort())).build();
    }

    @AfterEach
    void stop() throws IOException {
        client.close();
        server.stop(0);
    }

    /**
     * Issue 27 item 5: without the layout, writes were held against the lowest term written,
     * applied to every shard: a shard whose term was already higher failed every checkpoint, and
     * the job restarted for ever.
     */
    @Test
    void withoutViewIndexMetadataTheLayoutStillHoldsEachShardToItsOwnTermSoUnequalTermsDoNotFailEveryFence() throws IOException {
        ClusterMetadataClient metadata = new ClusterMetadataClient(client);
        IndexRoutingTable table = new IndexRoutingTable(metadata, System::currentTimeMillis);

        Optional<IndexLayout> layout = table.layoutFor("idx");

        assertThat(layout).as("the primary terms come from _cluster/state, which cluster monitor shows").isPresent();
        assertThat(layout.get().routing()).as("no calibration without _search_shards: documents go in ordinary bulks").isNull();
        AcknowledgedWrites written = new AcknowledgedWrites();
        written.record("idx", layout.get().anyShard(), 1); // applied on shard 0 under its term 1
        Map<String, IndexMetadata> now = metadata.indices(java.util.List.of("idx"));
        assertThat(written.firstMovedShard(now)).as("no primary moved").isNull();
    }
}
