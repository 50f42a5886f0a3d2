package io.kes.jobs.decode.avro;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A tiny schema registry on a free loopback port: {@code GET /schemas/ids/{id}} as Confluent's answers it. */
public final class TestSchemaRegistry implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final Map<Integer, String> schemas = new ConcurrentHashMap<>();
    private final AtomicInteger requests = new AtomicInteger();
    private volatile int failWith;

    public TestSchemaRegistry() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/schemas/ids/", this::handle);
        server.start();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public TestSchemaRegistry register(int id, String schemaJson) {
        schemas.put(id, schemaJson);
        return this;
    }

    /** Answers every request with this HTTP status from now on (0: normal). */
    public void failWith(int status) {
        failWith = status;
    }

    public int requests() {
        return requests.get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        requests.incrementAndGet();
        String path = exchange.getRequestURI().getPath();
        String schema;
        try {
            schema = schemas.get(Integer.parseInt(path.substring("/schemas/ids/".length())));
        } catch (NumberFormatException e) {
            schema = null;
        }
        if (failWith != 0) {
            respond(exchange, failWith, "{\"error_code\":" + failWith + ",\"message\":\"failing on purpose\"}");
        } else if (schema == null) {
            respond(exchange, 404, "{\"error_code\":40403,\"message\":\"Schema not found\"}");
        } else {
            respond(exchange, 200, JSON.writeValueAsString(Map.of("schema", schema)));
        }
    }

    private static void respond(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/vnd.schemaregistry.v1+json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
