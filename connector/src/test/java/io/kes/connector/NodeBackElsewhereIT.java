package io.kes.connector;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.FaultProxy;
import io.kes.stack.Http;
import io.kes.stack.Ports;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.Test;

/**
 * Issue 37 item 6: a node that comes back under a new address left the wait for a bulk kes gave up
 * on asking its old address, which stays silent (a pod's old IP: no process refuses there), until
 * {@code retry.max_time}. The node publishes the address of a proxy in front of it, so kes sends it
 * bulks there; the proxy holds one inside Elasticsearch, kes times out and waits for it. Then the
 * node is killed and started again on the same data (same node id, new ephemeral id) publishing its
 * own address, while the proxy's address only accepts connections and never answers. The restarted
 * process runs none of the old bulks: ingestion must end long before {@code retry.max_time}, every
 * id at its last write.
 */
class NodeBackElsewhereIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int KEYS = 50;
    private static final int RECORDS = 1_000;
    private static final Duration RETRY_MAX_TIME = Duration.ofMinutes(10);
    /** Far below retry.max_time: a restart, a few socket timeouts and a refresh of the nodes. */
    private static final Duration FINISHED_WITHIN = Duration.ofMinutes(3);

    @Test
    void aWaitForABulkOnANodeThatCameBackElsewhereEndsWhenTheClusterListsItsNewProcess() throws Exception {
        int httpPort = Ports.free();
        int transportPort = Ports.free();
        List<Socket> blackHoled = new CopyOnWriteArrayList<>();
        ElasticsearchNode first = null;
        ElasticsearchNode restarted = null;
        ServerSocket silent = null;
        try (FaultProxy proxy = FaultProxy.start("127.0.0.1", httpPort)) {
            int oldPort = proxy.port();
            first = ElasticsearchNode.builder()
                    .ports(httpPort, transportPort)
                    .setting("http.publish_host", "127.0.0.1")
                    .setting("http.publish_port", Integer.toString(oldPort))
                    .build()
                    .start();
            Http http = first.http();
            JsonNode before = nodes(http);
            // one replica on one node: never assigned, so a bulk asking for every copy is held as a task
            http.send("PUT", "/back", "{\"settings\":{\"number_of_shards\":1,\"number_of_replicas\":1}}")
                    .requireOk("create");
            proxy.holdBulksInElasticsearch(1, Duration.ofMinutes(5));
            ElasticsearchSink sink = ElasticsearchSink.builder()
                    .setHosts(first.url()) // the node's own port: kes finds the proxy as its published address
                    .set(ElasticsearchSinkOptions.SOCKET_TIMEOUT, Duration.ofSeconds(2))
                    .setBulkMaxDocs(KEYS)
                    .setBulkLinger(Duration.ofMillis(100))
                    .setRetry(Duration.ofMillis(100), Duration.ofMillis(500), RETRY_MAX_TIME)
                    .build();
            JobClient job = SinkPipelines.start(
                    sink,
                    RECORDS,
                    500,
                    1,
                    // checkpoints, so the job can restart: the fence fails the checkpoint after the
                    // shard's primary term moved with the restart, and the job replays from the last one
                    Duration.ofSeconds(1),
                    i -> DocumentOperation.index(
                            "back", "k" + (i % KEYS), ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8)));

            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (proxy.stats().heldBulks() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(proxy.stats().heldBulks())
                    .as("a bulk sent to the node's published address is held in Elasticsearch")
                    .isEqualTo(1);
            Thread.sleep(5_000); // kes timed out (2 s) and waits: the node answers at that address that it runs it

            first.kill();
            proxy.close();
            // the old address accepts connections and never answers, as a host that is gone need not refuse
            silent = bindWhenFree(oldPort);
            ServerSocket accepting = silent;
            Thread holder = new Thread(() -> {
                try {
                    while (true) {
                        blackHoled.add(accepting.accept());
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            holder.setDaemon(true);
            holder.start();
            restarted = ElasticsearchNode.builder()
                    .nodeDir(first.nodeDir()) // the same data: the same node id
                    .ports(httpPort, transportPort)
                    .setting("http.publish_host", "127.0.0.1")
                    .build()
                    .start();
            long restartedAt = System.nanoTime();
            JsonNode after = nodes(http);
            assertThat(after.fieldNames().next())
                    .as("the same node id")
                    .isEqualTo(before.fieldNames().next());
            assertThat(after.elements().next().path("ephemeral_id").asText())
                    .as("a new process")
                    .isNotEqualTo(before.elements().next().path("ephemeral_id").asText());

            job.getJobExecutionResult().get(FINISHED_WITHIN.toSeconds(), TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(System.nanoTime() - restartedAt))
                    .as("the wait ended once the node was listed as a new process, not at retry.max_time")
                    .isLessThan(FINISHED_WITHIN);
            assertThat(blackHoled)
                    .as("kes asked the old address, which never answered")
                    .isNotEmpty();

            http.send("POST", "/back/_refresh", null).requireOk("refresh");
            JsonNode hits = JSON.readTree(
                            http.get("/back/_search?size=" + KEYS + "&filter_path=hits.hits._id,hits.hits._source")
                                    .requireOk("search")
                                    .body())
                    .path("hits")
                    .path("hits");
            Map<String, Long> stored = new TreeMap<>();
            hits.forEach(hit -> stored.put(
                    hit.path("_id").asText(), hit.path("_source").path("n").asLong()));
            Map<String, Long> expected = new TreeMap<>();
            for (int i = RECORDS - KEYS; i < RECORDS; i++) {
                expected.put("k" + (i % KEYS), (long) i);
            }
            assertThat(stored).as("every id at its last write").isEqualTo(expected);
        } finally {
            if (silent != null) {
                silent.close();
            }
            for (Socket s : blackHoled) {
                s.close();
            }
            if (restarted != null) {
                restarted.stop();
            } else if (first != null) {
                first.kill();
            }
        }
    }

    /** A listening socket on {@code port}, once the proxy's last connections there let it go. */
    private static ServerSocket bindWhenFree(int port) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            ServerSocket socket = new ServerSocket();
            socket.setReuseAddress(true);
            try {
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
                return socket;
            } catch (java.net.BindException inUse) {
                socket.close();
                if (System.nanoTime() > deadline) {
                    throw inUse;
                }
                Thread.sleep(50);
            }
        }
    }

    /** The cluster's nodes: id → ephemeral id. */
    private static JsonNode nodes(Http http) throws IOException {
        return JSON.readTree(http.get("/_cluster/state/nodes?filter_path=nodes.*.ephemeral_id")
                        .requireOk("nodes")
                        .body())
                .path("nodes");
    }
}
