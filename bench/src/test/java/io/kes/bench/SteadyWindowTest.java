package io.kes.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SteadyWindowTest {

    @Test
    void whatTheClientHeldIsTheMostItsProgressLinesShowReadButNotIndexed() {
        List<String> console = List.of(
                "[kes] job kes-bench started",
                "[kes]     5s read 264,700 | indexed 114,172 | 22,190 docs/s | lag 735,300 | retries 0",
                "[kes]    10s read 408,510 | indexed 275,172 | 31,897 docs/s | lag 591,490 | retries 0",
                "[kes]    35s read 1,000,000 | indexed 879,115 | 16,316 docs/s | lag 0 | retries 0");

        assertThat(SteadyWindow.readAhead(console)).isEqualTo(264_700 - 114_172);
        assertThat(SteadyWindow.readAhead(List.of("topic loader: 300,000 documents in 9.1 s")))
                .isZero();
    }

    @Test
    void theWindowEndsWhereTheClientMayHaveReadEveryRecord() {
        assertThat(SteadyWindow.end(1_000_000, 0)).isEqualTo(750_000);
        assertThat(SteadyWindow.end(1_000_000, 150_000)).isEqualTo(750_000);
        assertThat(SteadyWindow.end(1_000_000, 300_000)).isEqualTo(700_000);
        assertThat(SteadyWindow.end(300_000, 100_000)).isEqualTo(200_000);
    }

    @Test
    void aRunTooShortForWhatTheClientHoldsHasNoSteadyWindow() {
        assertThat(SteadyWindow.end(300_000, 150_000)).isEqualTo(150_000);
        assertThat(SteadyWindow.end(300_000, 160_000)).isEqualTo(-1);
    }
}
