package io.kes.jobs.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.jobs.config.KesConfig;
import java.net.ServerSocket;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ElasticsearchCheckTest {

    private static KesConfig configWithClosedPort() throws Exception {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        return KesConfig.parse(
                "elasticsearch: {hosts: [\"http://localhost:" + closed + "\"]}\n"
                        + "kafka: {bootstrap_servers: localhost:9092}\nroutes: [{topics: [a], index: a}]",
                Map.of());
    }

    /** {@code bin/kes check} against a server that answers every request with {@code status} and {@code body}. */
    private static PreflightReport checkSigned(String service, int status, String body) throws Exception {
        com.sun.net.httpserver.HttpServer server =
                com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 8);
        server.createContext("/", exchange -> {
            try (exchange) {
                byte[] bytes = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(status, bytes.length);
                exchange.getResponseBody().write(bytes);
            }
        });
        server.start();
        System.setProperty("aws.accessKeyId", "AKIDCHECK");
        System.setProperty("aws.secretAccessKey", "check-secret");
        try {
            KesConfig config = KesConfig.parse(
                    "elasticsearch: {hosts: [\"http://127.0.0.1:"
                            + server.getAddress().getPort()
                            + "\"], aws_sigv4: {region: eu-west-1, service: " + service + "}}\n"
                            + "kafka: {bootstrap_servers: localhost:9092}\nroutes: [{topics: [a], index: a}]",
                    Map.of());
            PreflightReport report = new PreflightReport();
            new ElasticsearchCheck(config).hosts(report, false);
            return report;
        } finally {
            System.clearProperty("aws.accessKeyId");
            System.clearProperty("aws.secretAccessKey");
            server.stop(0);
        }
    }

    @Test
    void aSignatureAwsRefusesFailsWithAwsReasonAndTheSettings() throws Exception {
        PreflightReport report = checkSigned(
                "es",
                403,
                "{\"message\":\"The request signature we calculated does not match the signature you provided.\"}");
        assertThat(report.failures())
                .first()
                .asString()
                .contains(
                        "AWS refused kes's SigV4-signed request (HTTP 403)",
                        "The request signature we calculated does not match",
                        "elasticsearch.aws_sigv4.region (eu-west-1)")
                .doesNotContain("check-secret");
    }

    @Test
    void aDomainSaysWhatKesDoesThere() throws Exception {
        PreflightReport report = checkSigned(
                "es",
                200,
                "{\"cluster_name\":\"logs\",\"version\":{\"number\":\"2.19.0\",\"distribution\":\"opensearch\"}}");
        assertThat(report.failed()).isFalse();
        assertThat(report.rows())
                .anySatisfy(row -> assertThat(row.detail())
                        .contains("OpenSearch 2.19.0", "AWS SigV4 signature accepted (es, eu-west-1)"));
        assertThat(report.rows())
                .anySatisfy(row -> assertThat(row.detail())
                        .contains(
                                "Amazon OpenSearch Service domain in eu-west-1",
                                "checkpoint fence",
                                "not to each primary's node"));
    }

    @Test
    void aServerlessCollectionWarnsOfTheFallbacks() throws Exception {
        PreflightReport report = checkSigned("aoss", 404, "{\"message\":\"Not Found\"}");
        assertThat(report.failed()).isFalse();
        assertThat(report.rows()).anySatisfy(row -> {
            assertThat(row.status()).isEqualTo(PreflightReport.Status.WARN);
            assertThat(row.detail()).contains("OpenSearch Serverless collection", "mixed bulks", "durability: request");
        });
    }

    @Test
    void aJobThatNeverReachedElasticsearchFailsNamingTheHostSetting() throws Exception {
        PreflightReport report = new PreflightReport();
        assertThat(new ElasticsearchCheck(configWithClosedPort()).hosts(report, false))
                .isEmpty();
        assertThat(report.failed()).isTrue();
        assertThat(report.failures())
                .singleElement()
                .asString()
                .contains("cannot connect", "check elasticsearch.hosts[0]");
    }

    @Test
    void aJobRestoredFromACheckpointRidesOutAnOutageWithAWarning() throws Exception {
        PreflightReport report = new PreflightReport();
        new ElasticsearchCheck(configWithClosedPort()).hosts(report, true);
        assertThat(report.failed()).isFalse();
        assertThat(report.rows()).singleElement().satisfies(row -> {
            assertThat(row.status()).isEqualTo(PreflightReport.Status.WARN);
            assertThat(row.detail()).contains("cannot connect", "the job waits for Elasticsearch");
        });
    }
}
