package io.kes.connector.testing;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;
import org.apache.http.HttpHost;
import org.elasticsearch.client.RestClient;

/**
 * A local HTTP server that answers each request path with a canned JSON answer, for unit tests of
 * decisions kes takes on Elasticsearch's answers (the shapes come from the real API; what a real
 * node does is proven by the ITs). {@code answer} maps a path to a status and body, or null for
 * the default answer.
 */
public final class CannedElasticsearch implements AutoCloseable {

    /** One answer: an HTTP status and its JSON body. */
    public record Answer(int status, String body) {
        public static Answer ok(String body) {
            return new Answer(200, body);
        }
    }

    private final HttpServer server;
    private final RestClient client;

    static {
        // read once by the JDK's server: without it, Nagle's algorithm holds each small answer ~40 ms
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    public CannedElasticsearch(Function<String, Answer> answer, Answer otherwise) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            Answer a = answer.apply(exchange.getRequestURI().getPath());
            if (a == null) {
                a = otherwise;
            }
            byte[] bytes = a.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(a.status(), bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        server.start();
        client = RestClient.builder(
                        new HttpHost("127.0.0.1", server.getAddress().getPort()))
                .build();
    }

    /** A client of this server, closed with it. */
    public RestClient client() {
        return client;
    }

    @Override
    public void close() throws IOException {
        client.close();
        server.stop(0);
    }
}
