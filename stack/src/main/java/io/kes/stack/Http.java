package io.kes.stack;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A few plain HTTP calls to a local Elasticsearch node: health, setup and assertions in tests. */
public final class Http {

    /** Status and body of one answer. */
    public record Response(int status, String body) {
        public Response requireOk(String what) {
            if (status / 100 != 2) {
                throw new IllegalStateException(what + " failed with HTTP " + status + ": " + body);
            }
            return this;
        }
    }

    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1)
            .build();

    private final String baseUrl;
    private final HttpClient client;
    /** The Authorization header's value, or null. */
    private final String authorization;

    public Http(String baseUrl) {
        this(baseUrl, null, null);
    }

    /** HTTPS trusting {@code ssl}'s anchors, with an {@code Authorization} header on every request (null: none). */
    public Http(String baseUrl, javax.net.ssl.SSLContext ssl, String authorization) {
        this.baseUrl = baseUrl;
        this.client = ssl == null
                ? CLIENT
                : HttpClient.newBuilder()
                        .connectTimeout(Duration.ofSeconds(5))
                        .version(HttpClient.Version.HTTP_1_1)
                        .sslContext(ssl)
                        .build();
        this.authorization = authorization;
    }

    /** The same node as another user (basic auth). */
    public Http as(String user, String password) {
        return new Http(baseUrl, client == CLIENT ? null : client.sslContext(), NodeSecurity.basic(user, password));
    }

    /** Refreshes {@code index} and counts its documents, as a test or the quick start checks them. */
    public long refreshAndCount(String index) throws IOException {
        send("POST", "/" + index + "/_refresh", null).requireOk("refresh of " + index);
        return longField(
                get("/" + index + "/_count").requireOk("count of " + index).body(), "count");
    }

    /** The first number called {@code field} in a JSON answer (enough for counts and stats). */
    public static long longField(String json, String field) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                        "\"" + java.util.regex.Pattern.quote(field) + "\":(-?\\d+)")
                .matcher(json);
        if (!m.find()) {
            throw new IllegalStateException("no number '" + field + "' in " + json);
        }
        return Long.parseLong(m.group(1));
    }

    public Response get(String path) throws IOException {
        return send("GET", path, null);
    }

    public Response send(String method, String path, String jsonBody) throws IOException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(Duration.ofSeconds(120))
                .method(
                        method,
                        jsonBody == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofString(jsonBody));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        if (jsonBody != null) {
            request.header("Content-Type", path.contains("_bulk") ? "application/x-ndjson" : "application/json");
        }
        try {
            HttpResponse<String> response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(), response.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while calling " + method + " " + path, e);
        }
    }
}
