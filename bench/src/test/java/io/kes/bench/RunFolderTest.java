package io.kes.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A run's results folder is named by its scenario, its date and what it ran, never overwriting an earlier run. */
class RunFolderTest {

    private static final LocalDate DAY = LocalDate.of(2026, 11, 30);

    private static String folder(String... args) {
        return BenchOptions.runFolder(BenchOptions.parse(args), DAY);
    }

    @Test
    void aUsersPathRunIsNamedByItsShards() {
        assertThat(folder("--scenario", "users-path", "--shards", "48,96", "--es-version", "8.19.21", "--out", "x"))
                .isEqualTo("users-path-2026-11-30-48-96-shards");
        assertThat(folder(
                        "--scenario",
                        "users-path",
                        "--shards",
                        "1",
                        "--modes",
                        "kes-keyed,kes-chained",
                        "--target",
                        "data-stream",
                        "--routing-field",
                        "level",
                        "--out",
                        "x"))
                .isEqualTo("users-path-2026-11-30-1-shards-data-stream-routing-level");
    }

    @Test
    void theOtherScenariosAreNamedByWhatTheyAre() {
        assertThat(folder("--scenario", "fixed-load", "--es-version", "8.19.21", "--out", "x"))
                .isEqualTo("fixed-load-2026-11-30");
        assertThat(folder("--es-version", "8.19.21", "--out", "x")).isEqualTo("full-2026-11-30");
        assertThat(folder("--quick", "--es-version", "8.19.21", "--out", "x")).isEqualTo("quick-2026-11-30");
    }

    @Test
    void aSecondRunOfTheSameDayGetsAFolderOfItsOwn(@TempDir Path results) throws IOException {
        assertThat(BenchOptions.freeFolder(results, "fixed-load-2026-11-30"))
                .isEqualTo(results.resolve("fixed-load-2026-11-30"));
        Files.createDirectory(results.resolve("fixed-load-2026-11-30"));
        Files.createDirectory(results.resolve("fixed-load-2026-11-30-2"));

        assertThat(BenchOptions.freeFolder(results, "fixed-load-2026-11-30"))
                .isEqualTo(results.resolve("fixed-load-2026-11-30-3"));
    }
}
