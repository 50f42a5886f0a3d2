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
        FixedLoadRuns.Result run = FixedLoadResults.run("kes", 0.2);

        String row = FixedLoadCsv.runRow(options, run).trim();

        assertThat(row.split(",", -1)).hasSize(FixedLoadCsv.RUN_HEADER.trim().split(",").length);
        assertThat(row).startsWith("kes,false,1,500,48,8,");
    }
}
