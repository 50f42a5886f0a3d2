package io.kes.connector.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.http.Header;
import org.apache.http.HttpHost;
import org.apache.http.HttpRequest;
import org.apache.http.message.BasicHttpEntityEnclosingRequest;
import org.apache.http.message.BasicHttpRequest;
import org.apache.http.nio.entity.NByteArrayEntity;
import org.apache.http.protocol.BasicHttpContext;
import org.apache.http.protocol.HttpCoreContext;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * kes's signing path against AWS's published SigV4 test suite (the vectors and their source:
 * {@code src/test/resources/aws-sig-v4-test-suite/README.md}). Each request is built as the REST
 * client hands it to its interceptors (an Apache request, the target host in the context, the body
 * as an NIO byte entity) and signed by {@link SigV4Signing} at the suite's time with its
 * credentials.
 *
 * <p>kes always sends and signs {@code x-amz-content-sha256} (the SDK's signer adds it; Serverless
 * requires it), as the suite's {@code sign_body} vectors do: those kes must reproduce header for
 * header. The other vectors sign without it, so their signatures cannot be kes's; for them the
 * suite checks {@link SigV4Verifier}, the verifier the proxy of {@code AwsSigV4IT} runs (it must
 * accept every signature of the suite, and refuse it once a byte changes), and that verifier checks
 * kes's signature of the same request.
 */
class SigV4SigningTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @ParameterizedTest
    @ValueSource(strings = {"post-x-www-form-urlencoded", "post-x-www-form-urlencoded-parameters"})
    void signsTheSuitesSignedBodyRequestsAsAwsDoes(String vector) throws Exception {
        Vector v = Vector.of(vector);
        HttpRequest sent = v.request.toApache();

        v.signing().process(sent, v.httpContext());

        assertThat(headers(sent)).as(vector).isEqualTo(v.signed.headers);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "get-vanilla",
                "get-vanilla-query-order-key-case",
                "get-vanilla-query-order-encoded",
                "get-vanilla-query-unreserved",
                "get-vanilla-with-session-token",
                "get-unreserved",
                "get-header-key-duplicate",
                "get-header-value-trim",
                "post-vanilla",
                "post-vanilla-query",
                "post-header-key-sort",
                "post-x-www-form-urlencoded",
                "post-x-www-form-urlencoded-parameters"
            })
    void theVerifierAcceptsTheSuitesSignaturesAndKes(String vector) throws Exception {
        Vector v = Vector.of(vector);
        assertThat(v.verifier().refusal(v.signed.arrived(), v.time))
                .as("the suite's own signature")
                .isNull();
        Request forged = v.signed.withSignatureChanged();
        assertThat(v.verifier().refusal(forged.arrived(), v.time))
                .as("one hex digit of the signature changed")
                .contains("does not match");

        HttpRequest sent = v.request.toApache();
        v.signing().process(sent, v.httpContext());
        Request kes = new Request(v.request.method, v.request.uri, headers(sent), v.request.body);
        assertThat(v.verifier().refusal(kes.arrived(), v.time))
                .as("kes's signature")
                .isNull();
        assertThat(v.verifier()
                        .refusal(
                                kes.withBody("x".getBytes(StandardCharsets.UTF_8))
                                        .arrived(),
                                v.time))
                .as("the body changed after signing")
                .contains("x-amz-content-sha256");
    }

    @ParameterizedTest
    @ValueSource(strings = {"get-vanilla", "post-x-www-form-urlencoded"})
    void aSecondSigningReplacesTheFirst(String vector) throws Exception {
        Vector v = Vector.of(vector);
        HttpRequest sent = v.request.toApache();
        SigV4Signing signing = v.signing();
        signing.process(sent, v.httpContext());
        signing.process(sent, v.httpContext()); // the REST client sending the same request again
        assertThat(sent.getHeaders("Authorization")).hasSize(1);
        assertThat(sent.getHeaders("X-Amz-Date")).hasSize(1);
        assertThat(sent.getHeaders(SigV4Signing.CONTENT_SHA256)).hasSize(1);
        Request kes = new Request(v.request.method, v.request.uri, headers(sent), v.request.body);
        assertThat(v.verifier().refusal(kes.arrived(), v.time)).isNull();
    }

    @org.junit.jupiter.api.Test
    void withoutCredentialsTheRequestFailsSayingWhereToPutThem() throws Exception {
        Vector v = Vector.of("get-vanilla");
        SigV4Signing signing = new SigV4Signing(
                new AwsSigV4("us-east-1", "es"),
                () -> {
                    throw software.amazon.awssdk.core.exception.SdkClientException.create(
                            "Unable to load credentials from any of the providers in the chain.");
                },
                Clock.systemUTC());

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> signing.process(v.request.toApache(), v.httpContext()))
                .isInstanceOf(SigV4Signing.NoCredentials.class)
                .hasMessageContaining("kes found no AWS credentials to sign with (elasticsearch.aws_sigv4)")
                .hasMessageContaining("Unable to load credentials")
                .hasMessageContaining("AWS_ACCESS_KEY_ID");
    }

    private static List<Map.Entry<String, String>> headers(HttpRequest request) {
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        for (Header header : request.getAllHeaders()) {
            headers.add(Map.entry(header.getName().toLowerCase(), header.getValue()));
        }
        headers.sort(Map.Entry.comparingByKey());
        return headers;
    }

    /** One vector of the suite: its context, request and signed request. */
    private record Vector(JsonNode context, Request request, Request signed, Instant time) {

        static Vector of(String name) throws IOException {
            JsonNode context = JSON.readTree(resource(name, "context.json"));
            return new Vector(
                    context,
                    Request.parse(resource(name, "request.txt")),
                    Request.parse(resource(name, "header-signed-request.txt")),
                    Instant.parse(context.path("timestamp").asText()));
        }

        SigV4Signing signing() {
            JsonNode creds = context.path("credentials");
            AwsCredentials credentials = creds.has("token")
                    ? AwsSessionCredentials.create(
                            creds.path("access_key_id").asText(),
                            creds.path("secret_access_key").asText(),
                            creds.path("token").asText())
                    : AwsBasicCredentials.create(
                            creds.path("access_key_id").asText(),
                            creds.path("secret_access_key").asText());
            return new SigV4Signing(
                    new AwsSigV4(
                            context.path("region").asText(),
                            context.path("service").asText()),
                    StaticCredentialsProvider.create(credentials),
                    Clock.fixed(time, ZoneOffset.UTC));
        }

        SigV4Verifier verifier() {
            JsonNode creds = context.path("credentials");
            return new SigV4Verifier(
                    context.path("region").asText(),
                    context.path("service").asText(),
                    id -> id.equals(creds.path("access_key_id").asText())
                            ? creds.path("secret_access_key").asText()
                            : null);
        }

        BasicHttpContext httpContext() {
            BasicHttpContext http = new BasicHttpContext();
            http.setAttribute(HttpCoreContext.HTTP_TARGET_HOST, new HttpHost(request.header("host"), -1, "https"));
            return http;
        }
    }

    private static String resource(String vector, String file) throws IOException {
        try (InputStream in =
                SigV4SigningTest.class.getResourceAsStream("/aws-sig-v4-test-suite/" + vector + "/" + file)) {
            assertThat(in).as(vector + "/" + file).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** A request of the suite: request line, {@code Name:value} headers, a blank line, the body. */
    private record Request(String method, String uri, List<Map.Entry<String, String>> headers, byte[] body) {

        static Request parse(String text) {
            int blank = text.indexOf("\n\n");
            String head = blank < 0 ? text : text.substring(0, blank);
            byte[] body = blank < 0 ? new byte[0] : text.substring(blank + 2).getBytes(StandardCharsets.UTF_8);
            String[] lines = head.split("\n");
            String[] requestLine = lines[0].split(" ");
            List<Map.Entry<String, String>> headers = new ArrayList<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                headers.add(Map.entry(lines[i].substring(0, colon).toLowerCase(), lines[i].substring(colon + 1)));
            }
            headers.sort(Map.Entry.comparingByKey());
            return new Request(requestLine[0], requestLine[1], headers, body);
        }

        String header(String name) {
            return headers.stream()
                    .filter(h -> h.getKey().equals(name))
                    .findFirst()
                    .orElseThrow()
                    .getValue();
        }

        HttpRequest toApache() {
            HttpRequest request;
            if (body.length > 0) {
                BasicHttpEntityEnclosingRequest enclosing = new BasicHttpEntityEnclosingRequest(method, uri);
                enclosing.setEntity(new NByteArrayEntity(body));
                request = enclosing;
            } else {
                request = new BasicHttpRequest(method, uri);
            }
            headers.forEach(h -> request.addHeader(h.getKey(), h.getValue()));
            return request;
        }

        SigV4Verifier.Arrived arrived() {
            int q = uri.indexOf('?');
            return new SigV4Verifier.Arrived(
                    method, q < 0 ? uri : uri.substring(0, q), q < 0 ? null : uri.substring(q + 1), headers, body);
        }

        Request withSignatureChanged() {
            List<Map.Entry<String, String>> changed = new ArrayList<>();
            for (Map.Entry<String, String> h : headers) {
                String value = h.getValue();
                if (h.getKey().equals("authorization")) {
                    char last = value.charAt(value.length() - 1);
                    value = value.substring(0, value.length() - 1) + (last == '0' ? '1' : '0');
                }
                changed.add(Map.entry(h.getKey(), value));
            }
            return new Request(method, uri, changed, body);
        }

        Request withBody(byte[] other) {
            return new Request(method, uri, headers, other);
        }
    }
}
