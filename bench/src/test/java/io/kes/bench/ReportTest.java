package io.kes.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import java.util.List;
import org.junit.jupiter.api.Test;

class ReportTest {

    @Test
    void pairedRatioIsTheMedianOfTheRatiosOfRunsOfTheSameRound() {
        // The machine's speed drifts between rounds; kes is 1.2x official in every round they share,
        // while the ratio of the medians (18,000 / 20,000: kes ran one more round, a slow one) says 0.9.
        List<Run> runs = List.of(
                run("kes", 1, 24_000),
                run("official", 1, 20_000),
                run("kes", 2, 12_000),
                run("official", 2, 10_000),
                run("kes", 3, 30_000),
                run("official", 3, 25_000),
                run("kes", 4, 6_000));
        assertThat(Report.pairedRatio(runs, "kes", "official", Run::docsPerSecond))
                .isEqualTo(1.2, offset(1e-9));
    }

    @Test
    void windowsOfALongRunningJobAreNotPairedWithRounds() {
        List<Run> runs = List.of(run("kes-long", 2, 10_000), run("ceiling", 2, 20_000));
        assertThat(Report.pairedRatio(runs, "kes-long", "ceiling", Run::docsPerSecond))
                .isNaN();
    }

    private static Run run(String mode, int round, double docsPerSecond) {
        long docs = 100_000;
        return new Run(mode, round, docs, docs, docs / docsPerSecond, 1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 100);
    }
}
