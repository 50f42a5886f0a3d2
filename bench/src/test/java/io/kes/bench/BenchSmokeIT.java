package io.kes.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A tiny smoke of {@code bin/kes bench}: its own Kafka and Elasticsearch, 20,000 records, one round
 * of every single-node mode but the official sink's. Not a measurement: it checks that every mode
 * indexes exactly the topic's records and that the table and the chart are written.
 *
 * <p>The official sink is left out to keep the smoke near a minute: its own JVM, MiniCluster and run
 * took 32 s of a smoke with it (232 s in all, 226 s without it, both on a machine at load 20-40), and
 * it would move the smoke to Elasticsearch 8.19. Adding {@code official} to {@link #MODES} runs it
 * here too (it passed so).
 */
class BenchSmokeIT {

    private static final List<String> MODES = List.of("kes", "kes-mixed", "kes-request", "ceiling");

    @Test
    void quickBenchWritesTheTableAndEveryCountMatches() throws Exception {
        Path out = Path.of("target/bench-smoke/results");
        BenchOptions options = BenchOptions.parse(new String[] {
            "--quick",
            "--records",
            "20000",
            "--skip-multinode",
            "--no-profile",
            "--modes",
            String.join(",", MODES),
            "--out",
            out.toString(),
            "--work",
            "target/bench-smoke/run"
        });
        Bench bench = new Bench(options);

        boolean countsMatch = bench.run();

        assertThat(countsMatch)
                .as("every mode indexed exactly the topic's records")
                .isTrue();
        String table = Files.readString(out.resolve("latest.md"));
        for (String mode : MODES) {
            assertThat(table).contains("| " + mode + " |");
        }
        assertThat(table).doesNotContain("MISMATCH");
        assertThat(table).contains("| kes / ceiling (docs/s) |");
        assertThat(out.resolve("latest.png")).isNotEmptyFile();
        assertThat(out.resolve("rounds.csv")).isNotEmptyFile();
        assertThat(Files.readAllLines(out.resolve("rounds.csv"))).hasSize(1 + MODES.size());
    }
}
