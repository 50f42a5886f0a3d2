package io.kes.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The documents of one index each node has indexed, each node asked through its own HTTP port
 * ({@code _nodes/_local/stats}, per index) by a thread of its own with a short timeout: a stopped
 * node answers nothing, and while it does not its last answer stands, so it never holds back the
 * other nodes' counts (a cluster-wide {@code _stats} waits for every shard). Replicas 0: a node's
 * count is its primaries' documents.
 */
final class NodeCounts implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** How often each node is asked; the sampler reads every 100 ms, so each reading is at most this old plus a round trip. */
    private static final long POLL_MS = 25;

    private static final Duration TIMEOUT = Duration.ofMillis(250);

    private final String index;
    private final List<AtomicLong> counts = new ArrayList<>();
    private final List<Thread> pollers = new ArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean(true);

    NodeCounts(List<String> nodeUrls, String index) {
        this.index = index;
        for (String url : nodeUrls) {
            AtomicLong count = new AtomicLong();
            counts.add(count);
            // a client per node: a stopped node's hanging connections must not take the others' pool
            HttpClient client = HttpClient.newBuilder()
                    .connectTimeout(TIMEOUT)
                    .version(HttpClient.Version.HTTP_1_1)
                    .build();
            HttpRequest request = HttpRequest.newBuilder(URI.create(url
                            + "/_nodes/_local/stats/indices/indexing?level=indices&filter_path=nodes.*.indices.indices."
                            + index + ".indexing.index_total"))
                    .timeout(TIMEOUT)
                    .GET()
                    .build();
            Thread poller = new Thread(() -> poll(client, request, count), "kes-bench-count-" + url);
            poller.setDaemon(true);
            pollers.add(poller);
        }
        pollers.forEach(Thread::start);
    }

    private void poll(HttpClient client, HttpRequest request, AtomicLong count) {
        while (running.get()) {
            try {
                HttpResponse<String> r = client.send(request, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    count.set(Math.max(count.get(), indexTotal(r.body(), index)));
                }
            } catch (InterruptedException e) {
                return;
            } catch (Exception timeoutOrStopped) {
                // the node is stopped or slow: its last count stands
            }
            try {
                Thread.sleep(POLL_MS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** {@code index_total} of {@code index} in one node's {@code _nodes/_local/stats?level=indices} answer; 0 when it holds none of it. */
    static long indexTotal(String body, String index) throws java.io.IOException {
        long total = 0;
        for (Iterator<JsonNode> nodes = JSON.readTree(body).path("nodes").elements(); nodes.hasNext(); ) {
            JsonNode stats = nodes.next().path("indices").path("indices").path(index);
            total += stats.path("indexing").path("index_total").asLong();
        }
        return total;
    }

    /** The documents indexed, by the nodes' latest answers. */
    long total() {
        return counts.stream().mapToLong(AtomicLong::get).sum();
    }

    @Override
    public void close() {
        running.set(false);
        pollers.forEach(Thread::interrupt);
    }
}
