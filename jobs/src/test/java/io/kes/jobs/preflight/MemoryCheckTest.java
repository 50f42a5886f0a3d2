package io.kes.jobs.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.jobs.config.KesConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MemoryCheckTest {

    private static KesConfig config(int parallelism) throws Exception {
        return KesConfig.parse(
                "elasticsearch: {hosts: [\"http://localhost:9200\"]}\n"
                        + "kafka: {bootstrap_servers: localhost:9092}\njob: {parallelism: " + parallelism + "}\n"
                        + "routes: [{topics: [a], index: a}]",
                Map.of());
    }

    @Test
    void eightWritersWithTheDefaultsWarnUnderHalfAGigabyteAndPassInOne() throws Exception {
        PreflightReport small = new PreflightReport();
        MemoryCheck.check(small, config(8), 512L << 20, MemoryCheck.NODES_UNKNOWN);
        assertThat(small.rows()).singleElement().satisfies(row -> {
            assertThat(row.status()).isEqualTo(PreflightReport.Status.WARN);
            assertThat(row.detail())
                    .isEqualTo("8 writer(s) x 50 MB (bulk.max_buffered_bytes + bulk.max_queued_bytes + in-flight bulks "
                            + "per node + 4 answered bodies' arrays, 1 configured host(s)) + 300 MB for Flink = 702 MB; "
                            + "this JVM's heap is 512 MB: "
                            + "raise KES_HEAP (bin/kes run) or the TaskManagers' heap, or lower bulk.max_buffered_bytes, "
                            + "bulk.max_queued_bytes, bulk.max_in_flight or the parallelism");
        });

        PreflightReport enough = new PreflightReport();
        MemoryCheck.check(enough, config(8), 1L << 30, MemoryCheck.NODES_UNKNOWN);
        assertThat(enough.rows())
                .singleElement()
                .satisfies(row -> assertThat(row.status()).isEqualTo(PreflightReport.Status.OK));
    }
    /** One address (a load balancer) in front of ten data nodes: the writer keeps a budget per data node it finds. */
    @Test
    void theBoundCountsTheDataNodesTheClusterHasNotTheConfiguredHosts() throws Exception {
        PreflightReport report = new PreflightReport();
        MemoryCheck.check(report, config(8), 1L << 30, 10);
        assertThat(report.rows()).singleElement().satisfies(row -> {
            // 20 + 10 MB of buffers and queues, (10 nodes + the configured hosts' budget) x 4 bulks x 2 x 1 MB, 4
            // arrays kept
            assertThat(row.detail()).startsWith("8 writer(s) x 122 MB").contains("10 data node(s)");
            assertThat(row.status()).isEqualTo(PreflightReport.Status.WARN);
        });
    }

    @Test
    void deadLetterProducersBuffersCount() throws Exception {
        KesConfig config = KesConfig.parse(
                "elasticsearch: {hosts: [\"http://localhost:9200\"]}\n"
                        + "kafka: {bootstrap_servers: localhost:9092, properties: {buffer.memory: '16777216'}}\n"
                        + "job: {parallelism: 2}\nerrors: {tolerance: all, dead_letter_topic: dlq}\n"
                        + "routes: [{topics: [a], index: a}]",
                Map.of());
        PreflightReport report = new PreflightReport();
        MemoryCheck.check(report, config, 1L << 30, MemoryCheck.NODES_UNKNOWN);
        // a producer per decoder and per writer: 2 x 2 x 16 MB
        assertThat(report.rows())
                .singleElement()
                .satisfies(row -> assertThat(row.detail()).contains("4 dead-letter producer(s) x 16 MB"));
    }
}
