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

    @Test
    void everyKesModeThatRanIsHeldToTheTargetsAndBelow3000PerSecondTheCpuTargetIsParity(@TempDir Path out)
            throws Exception {
        BenchOptions options = BenchOptions.parse(
                new String[] {"--scenario", "fixed-load", "--stall", "off", "--rate", "500", "--out", out.toString()});
        List<FixedLoadRuns.Result> runs = List.of(run("kes", 0.30), run("kes-keyed", 0.20), run("official", 0.25));

        String md = new FixedLoadReport(options, runs, Map.of()).write();

        assertThat(md)
                .contains("| no stall: kes ES CPU per doc <= 1.0x official | 0.300 vs 0.250 (1.20x) | **no** |")
                .contains("| no stall: kes-keyed ES CPU per doc <= 1.0x official | 0.200 vs 0.250 (0.80x) | yes |")
                .contains("| no stall: kes-keyed visible lag p50 <= official |");
    }

    private static FixedLoadRuns.Result run(String mode, double esCpuSecondsPerThousand) {
        IndexLag.Summary lag = new IndexLag.Summary(100, 200, 300, 400, 600, 50);
        return new FixedLoadRuns.Result(
                new FixedLoadScenario.Variant(mode, false),
                1,
                30_500,
                30_500,
                30_500,
                lag,
                new VisibleLag.Series(new long[0], new long[0], new long[0], lag),
                0,
                12.5,
                new BulkShape(30_000, 1_000, 1_000),
                2_000,
                new EsCpuPerDocs(Math.round(esCpuSecondsPerThousand * 30_000), 30_000),
                0.1,
                20,
                0.5,
                new long[0],
                new long[0],
                new long[0]);
    }
}
