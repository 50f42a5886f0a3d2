package io.kes.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The proxy's HTTP framing and faults, against a tiny local HTTP server (pure logic, no Elasticsearch). */
class FaultProxyTest {

    private HttpServer server;
    private FaultProxy proxy;
    private final List<String> received = new CopyOnWriteArrayList<>();
    private final List<InetSocketAddress> peers = new CopyOnWriteArrayList<>();
    private final CountDownLatch slowStarted = new CountDownLatch(1);
    private final HttpClient client =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            received.add(exchange.getRequestMethod() + " " + exchange.getRequestURI() + " " + body);
            peers.add(exchange.getRemoteAddress());
            byte[] answer = ("echo:" + body).getBytes(StandardCharsets.UTF_8);
            if (exchange.getRequestURI().getPath().startsWith("/slow")) {
                slowStarted.countDown();
                sleep(3000);
            }
            if (exchange.getRequestMethod().equals("HEAD")) {
                exchange.sendResponseHeaders(200, -1);
            } else if (exchange.getRequestURI().getPath().equals("/chunked")) {
                exchange.sendResponseHeaders(200, 0); // 0: chunked
                try (OutputStream out = exchange.getResponseBody()) {
                    for (int i = 0; i < 3; i++) {
                        out.write(answer);
                        out.flush();
                    }
                }
            } else {
                exchange.sendResponseHeaders(200, answer.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(answer);
                }
            }
        });
        server.start();
        proxy = FaultProxy.start("127.0.0.1", server.getAddress().getPort());
    }

    @AfterEach
    void stop() {
        proxy.close();
        server.stop(0);
    }

    @Test
    void relaysContentLengthChunkedAndBodilessMessagesOverOneKeptAliveConnection() throws Exception {
        assertThat(send("POST", "/logs/_bulk", "{\"index\":{}}\n{}\n").body()).isEqualTo("echo:{\"index\":{}}\n{}\n");
        assertThat(send("GET", "/chunked", null).body()).isEqualTo("echo:echo:echo:");
        assertThat(send("HEAD", "/logs", null).statusCode()).isEqualTo(200);
        String big = "x".repeat(200_000);
        assertThat(send("PUT", "/big", big).body()).isEqualTo("echo:" + big);

        assertThat(received).hasSize(4);
        assertThat(peers.stream().distinct())
                .as("one upstream connection, kept alive")
                .hasSize(1);
        assertThat(proxy.stats().forwarded()).isEqualTo(4);
    }

    @Test
    void aStormAnswersBulksWith429WithoutForwardingThem() throws Exception {
        proxy.rejectBulksFor(Duration.ofMinutes(1));

        HttpResponse<String> bulk = send("POST", "/logs/_bulk?timeout=1m", "{\"index\":{}}\n{}\n");
        HttpResponse<String> other = send("GET", "/_cluster/health", null);

        assertThat(bulk.statusCode()).isEqualTo(429);
        assertThat(bulk.body()).contains("es_rejected_execution_exception");
        assertThat(other.statusCode()).isEqualTo(200);
        assertThat(received).containsExactly("GET /_cluster/health ");
        assertThat(proxy.stats().rejectedBulks()).isEqualTo(1);
    }

    @Test
    void aLostResponseWasAppliedButTheClientSeesItsConnectionReset() throws Exception {
        proxy.loseBulkResponses(1);

        assertThatThrownBy(() -> send("POST", "/logs/_bulk", "applied")).isInstanceOf(IOException.class);
        assertThat(received).containsExactly("POST /logs/_bulk applied");
        assertThat(send("POST", "/logs/_bulk", "again").body())
                .as("only one response lost")
                .isEqualTo("echo:again");
        assertThat(proxy.stats().lostResponses()).isEqualTo(1);
    }

    @Test
    void aHeldBulkReachesElasticsearchAskingToWaitForEveryShardCopy() throws Exception {
        proxy.holdBulksInElasticsearch(1, Duration.ofSeconds(30));

        send("POST", "/_bulk?filter_path=items", "held");
        send("POST", "/_bulk", "not held");

        assertThat(received)
                .containsExactly(
                        "POST /_bulk?filter_path=items&wait_for_active_shards=all&timeout=30000ms held",
                        "POST /_bulk not held");
        assertThat(proxy.stats().heldBulks()).isEqualTo(1);
    }

    /**
     * A load balancer whose read timeout ends before the node's work: the client gets a 504 from
     * the proxy while the upstream still has the request and finishes it later.
     */
    @Test
    void aHeldBulkAnsweredByTheProxyWithAGatewayTimeoutStillReachesTheUpstream() throws Exception {
        proxy.holdBulksInElasticsearch(1, Duration.ofSeconds(30));
        proxy.answerHeldBulksWith(504, Duration.ofMillis(200));

        HttpResponse<String> held = send("POST", "/slow/_bulk", "held");
        HttpResponse<String> next = send("POST", "/_bulk", "next");

        assertThat(held.statusCode()).isEqualTo(504);
        assertThat(held.body()).doesNotContain("echo");
        assertThat(next.body()).as("the connection goes on").isEqualTo("echo:next");
        assertThat(slowStarted.await(10, TimeUnit.SECONDS))
                .as("the upstream got the held bulk")
                .isTrue();
        assertThat(proxy.stats().gatewayAnswers()).isEqualTo(1);
    }

    @Test
    void onlyBulksNamingTheIndexAreHeldWhenOneIsNamed() throws Exception {
        proxy.holdBulksInElasticsearch(1, Duration.ofSeconds(30), "\"_index\":\"b\"");

        send("POST", "/_bulk", "{\"index\":{\"_index\":\"a\"}}");
        send("POST", "/_bulk", "{\"index\":{\"_index\":\"b\"}}");

        assertThat(received)
                .containsExactly(
                        "POST /_bulk {\"index\":{\"_index\":\"a\"}}",
                        "POST /_bulk?wait_for_active_shards=all&timeout=30000ms {\"index\":{\"_index\":\"b\"}}");
    }

    @Test
    void aResetBreaksTheRequestsInFlight() throws Exception {
        Thread resetter = new Thread(() -> {
            try {
                slowStarted.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                return;
            }
            proxy.resetConnections();
        });
        resetter.start();

        // POST: java.net.http retries an idempotent GET once on its own
        assertThatThrownBy(() -> send("POST", "/slow", "x")).isInstanceOf(IOException.class);
        resetter.join();
        assertThat(proxy.stats().resetConnections()).isEqualTo(1);
        assertThat(send("GET", "/after", null).statusCode())
                .as("new connections work")
                .isEqualTo(200);
    }

    private HttpResponse<String> send(String method, String path, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(proxy.url() + path))
                .timeout(Duration.ofSeconds(20))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
