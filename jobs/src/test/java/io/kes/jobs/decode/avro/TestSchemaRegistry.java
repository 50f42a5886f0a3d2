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
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A tiny schema registry on a free loopback port that answers as Confluent's REST API does
 * (docs.confluent.io, "Schema Registry API Reference"): {@code GET /schemas/ids/{id}},
 * {@code GET /schemas/guids/{guid}} and {@code GET /subjects/{subject}/versions/{version}}, each
 * with {@code schema}, and {@code schemaType} and {@code references} when they are not Avro's
 * defaults (as the real registry leaves them out for Avro without references).
 */
public final class TestSchemaRegistry implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final String scheme;
    private final Map<String, String> bodies = new ConcurrentHashMap<>();
    private final AtomicInteger requests = new AtomicInteger();
    private volatile int failWith;
    private volatile String authorization;

    public TestSchemaRegistry() throws IOException {
        this(HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0), "http");
    }

    private TestSchemaRegistry(HttpServer server, String scheme) {
        this.server = server;
        this.scheme = scheme;
        server.createContext("/schemas/", this::handle);
        server.createContext("/subjects/", this::handle);
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
        return register(id, "AVRO", schemaJson);
    }

    /** A schema of any type (AVRO, PROTOBUF, JSON) under an id, referencing others ({@link #reference}). */
    public TestSchemaRegistry register(int id, String schemaType, String schema, Map<?, ?>... references) {
        bodies.put("/schemas/ids/" + id, body(schemaType, schema, references));
        return this;
    }

    /** A schema under a GUID, as the newer serializers name it in a record header. */
    public TestSchemaRegistry registerGuid(
            java.util.UUID guid, String schemaType, String schema, Map<?, ?>... references) {
        bodies.put("/schemas/guids/" + guid, body(schemaType, schema, references));
        return this;
    }

    /** A subject's version, which schemas reference by name. */
    public TestSchemaRegistry registerVersion(String subject, int version, String schemaType, String schema) {
        bodies.put("/subjects/" + subject + "/versions/" + version, body(schemaType, schema));
        return this;
    }

    /** One entry of a schema's {@code references}, as the registry lists them. */
    public static Map<String, Object> reference(String name, String subject, int version) {
        return Map.of("name", name, "subject", subject, "version", version);
    }

    private static String body(String schemaType, String schema, Map<?, ?>... references) {
        Map<String, Object> body = new java.util.LinkedHashMap<>();
        body.put("schema", schema);
        if (!"AVRO".equals(schemaType)) {
            body.put("schemaType", schemaType);
        }
        if (references.length > 0) {
            body.put("references", List.of(references));
        }
        try {
            return JSON.writeValueAsString(body);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
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
        String schema = bodies.get(path);
        String sent = exchange.getRequestHeaders().getFirst("Authorization");
        if (authorization != null && !authorization.equals(sent)) {
            respond(exchange, 401, "{\"error_code\":401,\"message\":\"Unauthorized\"}");
        } else if (failWith != 0) {
            respond(exchange, failWith, "{\"error_code\":" + failWith + ",\"message\":\"failing on purpose\"}");
        } else if (schema == null) {
            respond(exchange, 404, "{\"error_code\":40403,\"message\":\"Schema not found\"}");
        } else {
            respond(exchange, 200, schema);
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
