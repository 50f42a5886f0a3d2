package io.kes.jobs.check;

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
        MemoryCheck.check(small, config(8), 512L << 20);
        assertThat(small.rows()).singleElement().satisfies(row -> {
            assertThat(row.status()).isEqualTo(PreflightReport.Status.WARN);
            assertThat(row.detail())
                    .isEqualTo(
                            "8 writer(s) x 64 MB (bulk.max_buffered_bytes + bulk.max_queued_bytes + in-flight bulks "
                                    + "per node) + 300 MB for Flink = 812 MB; this JVM's heap is 512 MB: raise KES_HEAP (bin/kes run) or the "
                                    + "TaskManagers' heap, or lower bulk.max_buffered_bytes, bulk.max_queued_bytes or the parallelism");
        });

        PreflightReport enough = new PreflightReport();
        MemoryCheck.check(enough, config(8), 1L << 30);
        assertThat(enough.rows())
                .singleElement()
                .satisfies(row -> assertThat(row.status()).isEqualTo(PreflightReport.Status.OK));
    }
}
