package io.kes.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FixedLoadCsvTest {

    @Test
    void indexedSamplesAndSearchAnswersAreMergedInTimeOrderOneRowWhereBothFallOnTheSameMillisecond() {
        VisibleLag.Series visible =
                new VisibleLag.Series(new long[] {105, 200}, new long[] {0, 90}, new long[] {105, 110}, null);

        assertThat(FixedLoadCsv.sampleRows(
                        new long[] {0, 100, 200}, new long[] {0, 80, 180}, new long[] {0, 20, 20}, visible))
                .containsExactly("0,0,0,,", "100,80,20,,", "105,,,0,105", "200,180,20,90,110");
    }

    @Test
    void everyRunRowHasAValueForEveryColumnAndNamesItsShape() {
        BenchOptions options = BenchOptions.parse(new String[] {
            "--scenario", "fixed-load", "--shards", "48", "--writers", "8", "--rate", "500", "--out", "x"
        });
        IndexLag.Summary lag = new IndexLag.Summary(100, 200, 300, 400, 600, 50);
        FixedLoadRuns.Result run = new FixedLoadRuns.Result(
                new FixedLoadScenario.Variant("kes", false),
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
                new EsCpuPerDocs(6_000, 30_000),
                0.4,
                20,
                0.5,
                new long[0],
                new long[0],
                new long[0]);

        String row = FixedLoadCsv.runRow(options, run).trim();

        assertThat(row.split(",", -1)).hasSize(FixedLoadCsv.RUN_HEADER.trim().split(",").length);
        assertThat(row).startsWith("kes,false,1,500,48,8,");
    }
}
