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
}
