package io.kes.connector.cluster;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * What Amazon OpenSearch Service does with a request, for tests: a proxy in front of a real node
 * that checks each request's SigV4 signature ({@link SigV4Verifier}, with the secret it knows) and
 * answers 403 with AWS's reason when it does not hold; a request whose signature holds goes on to
 * the node without its AWS headers, and the node's answer comes back unchanged. It records what it
 * passed and what it refused.
 */
final class VerifyingProxy implements AutoCloseable {

    /** Headers the JDK's client sets itself, and the signature's own. */
    private static final Set<String> NOT_FORWARDED = Set.of(
            "host",
            "content-length",
            "connection",
            "expect",
            "upgrade",
            "transfer-encoding",
            "authorization",
            "date",
            "from",
            "via",
            "warning");

    private final SigV4Verifier verifier;
    private final URI node;
    private final HttpServer server;
    private final ExecutorService threads = Executors.newFixedThreadPool(8);
    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    final Queue<String> passed = new ConcurrentLinkedQueue<>();
    final Queue<String> refused = new ConcurrentLinkedQueue<>();

    /**
     * APIs the service lacks, answered 404 once the signature holds: a path equal to an entry, or
     * holding an entry longer than {@code /}.
     */
    private final Set<String> lacking;

    VerifyingProxy(SigV4Verifier verifier, String nodeUrl) throws IOException {
        this(verifier, nodeUrl, Set.of());
    }

    VerifyingProxy(SigV4Verifier verifier, String nodeUrl, Set<String> lacking) throws IOException {
        this.verifier = verifier;
        this.lacking = lacking;
        this.node = URI.create(nodeUrl);
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        server.createContext("/", this::handle);
        server.setExecutor(threads);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            URI uri = exchange.getRequestURI();
            List<Map.Entry<String, String>> headers = new ArrayList<>();
            exchange.getRequestHeaders()
                    .forEach((name, values) -> values.forEach(v -> headers.add(Map.entry(name, v))));
            String method = exchange.getRequestMethod();
            String what = method + " " + uri.getRawPath();
            String refusal = verifier.refusal(
                    new SigV4Verifier.Arrived(method, uri.getRawPath(), uri.getRawQuery(), headers, body),
                    Instant.now());
            if (refusal != null) {
                refused.add(what + ": " + refusal);
                respond(
                        exchange,
                        403,
                        "application/json",
                        ("{\"message\":\"" + refusal + "\"}").getBytes(StandardCharsets.UTF_8));
                return;
            }
            passed.add(what);
            String path = uri.getRawPath();
            if (lacking.stream().anyMatch(f -> f.equals(path) || (f.length() > 1 && path.contains(f)))) {
                respond(
                        exchange,
                        404,
                        "application/json",
                        "{\"message\":\"not supported\"}".getBytes(StandardCharsets.UTF_8));
                return;
            }
            HttpRequest.Builder forward = HttpRequest.newBuilder(
                            node.resolve(uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery())))
                    .timeout(Duration.ofSeconds(120))
                    .method(method, HttpRequest.BodyPublishers.ofByteArray(body));
            for (Map.Entry<String, String> h : headers) {
                String name = h.getKey().toLowerCase();
                if (!NOT_FORWARDED.contains(name) && !name.startsWith("x-amz-")) {
                    forward.header(h.getKey(), h.getValue());
                }
            }
            HttpResponse<byte[]> answer = client.send(forward.build(), HttpResponse.BodyHandlers.ofByteArray());
            respond(
                    exchange,
                    answer.statusCode(),
                    answer.headers().firstValue("Content-Type").orElse("application/json"),
                    "HEAD".equals(method) ? new byte[0] : answer.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void respond(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
