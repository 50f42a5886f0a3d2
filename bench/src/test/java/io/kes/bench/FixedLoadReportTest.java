package io.kes.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FixedLoadReportTest {

    /**
     * The stalled node holds 2 of 6 primaries: a third of the documents waits out each 1 s stall, so
     * the last 100 ms sample of a stall finds the count at least 0.30 s behind whoever sends them.
     */
    @Test
    void theReportStatesTheLagTheStallImposesOnEverySystem(@TempDir Path out) throws Exception {
        BenchOptions options =
                BenchOptions.parse(new String[] {"--scenario", "fixed-load", "--stall", "on", "--out", out.toString()});

        String md = new FixedLoadReport(options, List.of(), Map.of()).write();

        assertThat(md)
                .contains("the stalled node holds 2 of the index's 6 primaries", "33% of the documents")
                .contains("no system's p99 lag is below about 0.30 s");
    }

    @Test
    void withoutTheStallThereIsNoFloor(@TempDir Path out) throws Exception {
        BenchOptions options = BenchOptions.parse(
                new String[] {"--scenario", "fixed-load", "--stall", "off", "--out", out.toString()});

        assertThat(new FixedLoadReport(options, List.of(), Map.of()).write()).doesNotContain("floor");
    }
}
