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
