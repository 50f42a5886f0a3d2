package io.kes.connector.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.kes.connector.ElasticsearchSink;
import io.kes.connector.ElasticsearchSinkBuilder;
import io.kes.connector.ElasticsearchSinkOptions;
import io.kes.connector.SinkSettings;
import java.io.FileInputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.RestClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The REST client's TLS trust, against a real HTTPS server with a self-signed certificate made by keytool. */
class TlsContextsTest {

    @TempDir
    static Path dir;
    private static HttpsServer server;
    private static String fingerprint;

    @BeforeAll
    static void startHttpsServer() throws Exception {
        Path keystore = dir.resolve("server.p12");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        run(keytool, "-genkeypair", "-alias", "es", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=localhost",
                "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "2", "-keystore", keystore.toString(),
                "-storetype", "PKCS12", "-storepass", "changeit", "-keypass", "changeit");
        run(keytool, "-exportcert", "-rfc", "-alias", "es", "-keystore", keystore.toString(), "-storepass", "changeit",
                "-file", dir.resolve("ca.pem").toString());
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (FileInputStream in = new FileInputStream(keystore.toFile())) {
            ks.load(in, "changeit".toCharArray());
        }
        fingerprint = TlsContexts.FingerprintTrustManager.sha256((X509Certificate) ks.getCertificate("es"));
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, "changeit".toCharArray());
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(kmf.getKeyManagers(), null, null);
        server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(ssl));
        server.createContext("/", exchange -> {
            byte[] body = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    @AfterAll
    static void stop() {
        server.stop(0);
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
    }

    private static int get(ElasticsearchSinkBuilder builder) throws Exception {
        SinkSettings settings = builder.setHosts("https://localhost:" + server.getAddress().getPort()).build().settings();
        try (RestClient client = RestClients.create(settings)) {
            return client.performRequest(new Request("GET", "/")).getStatusLine().getStatusCode();
        }
    }

    @Test
    void trustsTheServerThroughItsCaFile() throws Exception {
        assertThat(get(ElasticsearchSink.builder().set(ElasticsearchSinkOptions.TLS_CA_FILE, dir.resolve("ca.pem").toString()))).isEqualTo(200);
    }

    @Test
    void trustsTheServerThroughItsFingerprintWithOrWithoutColons() throws Exception {
        assertThat(get(ElasticsearchSink.builder().set(ElasticsearchSinkOptions.TLS_FINGERPRINT, fingerprint))).isEqualTo(200);
        String withColons = fingerprint.toUpperCase().replaceAll("(..)(?!$)", "$1:");
        assertThat(get(ElasticsearchSink.builder().set(ElasticsearchSinkOptions.TLS_FINGERPRINT, withColons))).isEqualTo(200);
    }

    @Test
    void refusesAServerWithAnotherFingerprintOrAnUnknownCa() {
        assertThatThrownBy(() -> get(ElasticsearchSink.builder().set(ElasticsearchSinkOptions.TLS_FINGERPRINT, "ab".repeat(32))))
                .hasStackTraceContaining("no certificate in Elasticsearch's chain has the SHA-256 fingerprint");
        assertThatThrownBy(() -> get(ElasticsearchSink.builder())).hasStackTraceContaining("PKIX");
    }

    @Test
    void malformedFingerprintsAreRejectedAtBuild() {
        assertThatThrownBy(() -> ElasticsearchSink.builder().setHosts("https://h:9200")
                .set(ElasticsearchSinkOptions.TLS_FINGERPRINT, "abc").build())
                .hasMessage("elasticsearch.tls_fingerprint must be a SHA-256 fingerprint: 64 hex digits (colons allowed), got 'abc'");
    }
}
