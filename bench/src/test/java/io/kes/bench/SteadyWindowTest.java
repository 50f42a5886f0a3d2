package io.kes.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SteadyWindowTest {

    @Test
    void kesWasSurelyStillReadingUpToItsLastProgressLineWithRecordsLeft() {
        List<String> console = List.of(
                "[kes] job kes-bench started",
                "[kes]     5s read 264,700 | indexed 114,172 | 22,190 docs/s | lag 735,300 | retries 0",
                "[kes]    30s read 946,131 | indexed 797,115 | 23,593 docs/s | lag 53,869 | retries 0",
                "[kes]    35s read 1,000,000 | indexed 879,115 | 16,316 docs/s | lag 0 | retries 0");

        assertThat(SteadyWindow.stillReading(console, 1_000_000)).isEqualTo(797_115);
    }

    @Test
    void whatALineShowsReadButNotIndexedIsReadAheadOfTheWindowsEnd() {
        List<String> console = List.of(
                "[kes]     5s read 295,125 | indexed 138,847 | 27,258 docs/s | lag 4,875 | retries 0",
                "[kes]    10s read 299,000 | indexed 290,000 | 31,992 docs/s | lag 1,000 | retries 0");

        assertThat(SteadyWindow.stillReading(console, 300_000)).isEqualTo(300_000 - (295_125 - 138_847));
    }

    @Test
    void aFirstLineWithEveryRecordReadLeavesNoPointKnownToBeStillReading() {
        assertThat(SteadyWindow.stillReading(
                        List.of("[kes]     5s read 300,000 | indexed 120,000 | 27,258 docs/s | lag 0 |"), 300_000))
                .isZero();
        assertThat(SteadyWindow.stillReading(List.of("topic loader: 300,000 documents in 9.1 s"), 300_000))
                .as("no progress lines: nothing known")
                .isEqualTo(300_000);
    }

    @Test
    void theWindowEndsAtThreeQuartersOrWhereTheClientWasLastSurelyReading() {
        assertThat(SteadyWindow.end(1_000_000, 1_000_000)).isEqualTo(750_000);
        assertThat(SteadyWindow.end(1_000_000, 700_000)).isEqualTo(700_000);
        assertThat(SteadyWindow.end(300_000, 200_000)).isEqualTo(200_000);
    }

    @Test
    void aRunTooShortForWhatTheClientHoldsHasNoSteadyWindow() {
        assertThat(SteadyWindow.end(300_000, 150_000)).isEqualTo(150_000);
        assertThat(SteadyWindow.end(300_000, 140_000)).isEqualTo(-1);
    }
}
