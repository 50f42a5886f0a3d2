package io.kes.jobs.decode.avro;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/** A tiny schema registry on a free loopback port: {@code GET /schemas/ids/{id}} as Confluent's answers it. */
public final class TestSchemaRegistry implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final String scheme;
    private final Map<Integer, String> schemas = new ConcurrentHashMap<>();
    private final AtomicInteger requests = new AtomicInteger();
    private volatile int failWith;
    private volatile String authorization;

    public TestSchemaRegistry() throws IOException {
        this(HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0), "http");
    }

    private TestSchemaRegistry(HttpServer server, String scheme) {
        this.server = server;
        this.scheme = scheme;
        server.createContext("/schemas/ids/", this::handle);
        server.start();
    }

    /** A registry on HTTPS with the certificate (and key) of this PKCS12 key store. */
    public static TestSchemaRegistry https(Path keyStore, String password) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keyStore)) {
            store.load(in, password.toCharArray());
        }
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, password.toCharArray());
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(keys.getKeyManagers(), null, null);
        HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(tls));
        return new TestSchemaRegistry(server, "https");
    }

    public String url() {
        return scheme + "://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Answers 401, as Confluent's registry does, to requests without exactly this Authorization header. */
    public TestSchemaRegistry requireAuthorization(String header) {
        authorization = header;
        return this;
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
        String sent = exchange.getRequestHeaders().getFirst("Authorization");
        if (authorization != null && !authorization.equals(sent)) {
            respond(exchange, 401, "{\"error_code\":401,\"message\":\"Unauthorized\"}");
        } else if (failWith != 0) {
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
