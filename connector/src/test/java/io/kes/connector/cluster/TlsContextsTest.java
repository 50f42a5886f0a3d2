package io.kes.connector.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.kes.connector.ElasticsearchSink;
import io.kes.connector.ElasticsearchSinkBuilder;
import io.kes.connector.ElasticsearchSinkOptions;
import io.kes.connector.SinkSettings;
import io.kes.connector.cluster.TestCertificates.Identity;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.RestClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The REST client's TLS trust, against real HTTPS servers on loopback with certificates made by
 * keytool: a CA and the node certificate it signed, a self-signed node certificate, and what a man
 * in the middle can present: his own leaf next to the real (public) CA certificate, or a leaf
 * signed by his own key under the real CA's name.
 */
class TlsContextsTest {

    private static final String CA_DN = "CN=kes test CA";

    @TempDir
    static Path dir;

    private static Identity ca;
    private static X509Certificate node;
    private static Identity selfSigned;
    private static X509Certificate forged;
    private static final List<HttpsServer> servers = new ArrayList<>();
    private static Server real;
    private static Server selfSignedNode;
    private static Server attackerWithTheCa;
    private static Server attackerWithAForgedLeaf;

    /** A running HTTPS server and the requests it got: a refused handshake leaves none. */
    record Server(int port, AtomicInteger requests) {}

    @BeforeAll
    static void makeCertificatesAndServers() throws Exception {
        TestCertificates certs = new TestCertificates(dir);
        ca = certs.ca("ca", CA_DN);
        Identity nodeKey = certs.selfSigned("node", "CN=localhost", "SAN=dns:localhost");
        node = certs.sign(
                "node", "ca", "SAN=dns:localhost"); // no IP: connecting by 127.0.0.1 must fail the host name check
        selfSigned = certs.selfSigned("attacker", "CN=localhost", "SAN=dns:localhost");
        certs.ca("fakeca", CA_DN); // the attacker's own key under the real CA's name
        forged = certs.sign("attacker", "fakeca", "SAN=dns:localhost");
        certs.pem("ca.pem", ca.certificate());

        real = serve(nodeKey.key(), node, ca.certificate());
        selfSignedNode = serve(selfSigned.key(), selfSigned.certificate());
        attackerWithTheCa = serve(selfSigned.key(), selfSigned.certificate(), ca.certificate());
        attackerWithAForgedLeaf = serve(selfSigned.key(), forged, ca.certificate());
    }

    private static Server serve(PrivateKey key, X509Certificate... chain) throws Exception {
        SSLContext ssl = TestCertificates.serverPresenting(key, chain);
        HttpsServer server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(ssl));
        AtomicInteger requests = new AtomicInteger();
        server.createContext("/", exchange -> {
            requests.incrementAndGet();
            byte[] body = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        servers.add(server);
        return new Server(server.getAddress().getPort(), requests);
    }

    @AfterAll
    static void stop() {
        servers.forEach(s -> s.stop(0));
    }

    private static int get(Server server, ElasticsearchSinkBuilder builder) throws Exception {
        return get("https://localhost:" + server.port(), builder);
    }

    private static int get(String url, ElasticsearchSinkBuilder builder) throws Exception {
        SinkSettings settings = builder.setHosts(url).build().settings();
        try (RestClient client = RestClients.create(settings)) {
            return client.performRequest(new Request("GET", "/"))
                    .getStatusLine()
                    .getStatusCode();
        }
    }

    private static ElasticsearchSinkBuilder pinning(X509Certificate cert) throws CertificateException {
        return ElasticsearchSink.builder()
                .set(ElasticsearchSinkOptions.TLS_FINGERPRINT, TlsContexts.FingerprintTrustManager.sha256(cert));
    }

    private static void check(X509Certificate pinned, X509Certificate... chain) throws CertificateException {
        new TlsContexts.FingerprintTrustManager(TlsContexts.FingerprintTrustManager.sha256(pinned))
                .checkServerTrusted(chain, "ECDHE_ECDSA");
    }

    @Test
    void trustsTheServerThroughItsCaFile() throws Exception {
        assertThat(get(
                        real,
                        ElasticsearchSink.builder()
                                .set(
                                        ElasticsearchSinkOptions.TLS_CA_FILE,
                                        dir.resolve("ca.pem").toString())))
                .isEqualTo(200);
    }

    @Test
    void pinningTheCaTrustsTheNodeCertificateItSignedWithOrWithoutColons() throws Exception {
        assertThat(get(real, pinning(ca.certificate()))).isEqualTo(200);
        String withColons = TlsContexts.FingerprintTrustManager.sha256(ca.certificate())
                .toUpperCase()
                .replaceAll("(..)(?!$)", "$1:");
        assertThat(get(real, ElasticsearchSink.builder().set(ElasticsearchSinkOptions.TLS_FINGERPRINT, withColons)))
                .isEqualTo(200);
    }

    @Test
    void pinningTheNodeCertificateItselfWorksSignedOrSelfSigned() throws Exception {
        assertThat(get(real, pinning(node))).isEqualTo(200);
        assertThat(get(selfSignedNode, pinning(selfSigned.certificate()))).isEqualTo(200);
    }

    @Test
    void theChainMustValidateUpToThePinnedCertificateNotMerelyContainIt() {
        assertThatCode(() -> check(ca.certificate(), node, ca.certificate())).doesNotThrowAnyException();
        assertThatCode(() -> check(node, node, ca.certificate())).doesNotThrowAnyException();
        assertThatCode(() -> check(selfSigned.certificate(), selfSigned.certificate()))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> check(ca.certificate(), selfSigned.certificate(), ca.certificate()))
                .isInstanceOf(CertificateException.class)
                .hasMessageContaining("does not validate against the pinned certificate");
        assertThatThrownBy(() -> check(ca.certificate(), forged, ca.certificate()))
                .isInstanceOf(CertificateException.class)
                .hasMessageContaining("does not validate against the pinned certificate");
    }

    @Test
    void aManInTheMiddleShowingTheRealCaIsRefusedBeforeThePasswordLeaves() {
        for (Server attacker : List.of(attackerWithTheCa, attackerWithAForgedLeaf)) {
            assertThatThrownBy(() -> get(
                            attacker,
                            pinning(ca.certificate())
                                    .set(ElasticsearchSinkOptions.USERNAME, "elastic")
                                    .set(ElasticsearchSinkOptions.PASSWORD, "secret")))
                    .hasStackTraceContaining("does not validate against the pinned certificate");
            assertThat(attacker.requests()).as("requests the attacker received").hasValue(0);
        }
    }

    @Test
    void hostNamesAreStillVerified() {
        assertThatThrownBy(() -> get("https://127.0.0.1:" + real.port(), pinning(ca.certificate())))
                .hasStackTraceContaining("does not match the certificate subject");
    }

    @Test
    void refusesAServerWithAnotherFingerprintOrAnUnknownCa() {
        assertThatThrownBy(() -> get(
                        real,
                        ElasticsearchSink.builder().set(ElasticsearchSinkOptions.TLS_FINGERPRINT, "ab".repeat(32))))
                .hasStackTraceContaining("no certificate in Elasticsearch's chain has the SHA-256 fingerprint");
        assertThatThrownBy(() -> get(real, ElasticsearchSink.builder())).hasStackTraceContaining("PKIX");
    }

    @Test
    void malformedFingerprintsAreRejectedAtBuild() {
        assertThatThrownBy(() -> ElasticsearchSink.builder()
                        .setHosts("https://h:9200")
                        .set(ElasticsearchSinkOptions.TLS_FINGERPRINT, "abc")
                        .build())
                .hasMessage(
                        "elasticsearch.tls_fingerprint must be a SHA-256 fingerprint: 64 hex digits (colons allowed), got 'abc'");
    }
}
