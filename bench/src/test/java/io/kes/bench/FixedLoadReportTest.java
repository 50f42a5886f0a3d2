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

        String md = new FixedLoadReport(options, List.of(), List.of(), Map.of()).write();

        assertThat(md)
                .contains("the stalled node holds 2 of the index's 6 primaries", "33% of the documents")
                .contains("no system's p99 lag is below about 0.30 s");
    }

    @Test
    void withoutTheStallThereIsNoFloor(@TempDir Path out) throws Exception {
        BenchOptions options = BenchOptions.parse(
                new String[] {"--scenario", "fixed-load", "--stall", "off", "--out", out.toString()});

        assertThat(new FixedLoadReport(options, List.of(), List.of(), Map.of()).write())
                .doesNotContain("floor");
    }

    @Test
    void everyKesModeThatRanIsHeldToTheTargetsAndBelow3000PerSecondTheCpuTargetIsParity(@TempDir Path out)
            throws Exception {
        BenchOptions options = BenchOptions.parse(
                new String[] {"--scenario", "fixed-load", "--stall", "off", "--rate", "500", "--out", out.toString()});
        List<FixedLoadRuns.Result> runs = List.of(
                FixedLoadResults.run("kes", 0.30),
                FixedLoadResults.run("kes-keyed", 0.20),
                FixedLoadResults.run("official", 0.25));

        String md = new FixedLoadReport(options, runs, List.of(), Map.of()).write();

        assertThat(md)
                .contains("| no stall: kes ES CPU per doc <= 1.0x official | 0.300 vs 0.250 (1.20x) | **no** |")
                .contains("| no stall: kes-keyed ES CPU per doc <= 1.0x official | 0.200 vs 0.250 (0.80x) | yes |")
                .contains("| no stall: kes-keyed visible lag p50 <= official |");
    }

    /**
     * At 500 records/s an idle cluster's 0.1 core is 0.200 s of every 1,000 documents' ES CPU:
     * 0.300 against 0.250 in total is 0.100 against 0.050 above it.
     */
    @Test
    void theIdleClustersCpuIsSetApartSoTheTargetAlsoComparesWhatEachWritersDocumentsCost(@TempDir Path out)
            throws Exception {
        BenchOptions options = BenchOptions.parse(
                new String[] {"--scenario", "fixed-load", "--stall", "off", "--rate", "500", "--out", out.toString()});
        List<FixedLoadRuns.Result> runs =
                List.of(FixedLoadResults.run("kes", 0.30), FixedLoadResults.run("official", 0.25));

        String md = new FixedLoadReport(options, runs, List.of(0.09, 0.10, 0.12), Map.of()).write();

        assertThat(md)
                .contains("0.090, 0.100, 0.120 cores (median 0.100), at 500 records/s 0.200 s of ES CPU per 1,000 docs")
                .contains(
                        "| no stall: kes ES CPU per doc above the idle cluster's <= 1.0x official | 0.100 vs 0.050 (2.00x) | **no** |");
    }
}
