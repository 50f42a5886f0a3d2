package io.kes.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A tiny smoke of {@code bin/kes bench}: its own Kafka and Elasticsearch, 20,000 records, one round
 * of every single-node mode. Not a measurement: it checks that every mode indexes exactly the
 * topic's records and that the table and the chart are written.
 */
class BenchSmokeIT {

    @Test
    void quickBenchWritesTheTableAndEveryCountMatches() throws Exception {
        Path out = Path.of("target/bench-smoke/results");
        BenchOptions options = BenchOptions.parse(new String[] {
                "--quick", "--records", "20000", "--skip-multinode", "--no-profile",
                "--out", out.toString(), "--work", "target/bench-smoke/run"});
        Bench bench = new Bench(options);

        boolean countsMatch = bench.run();

        assertThat(countsMatch).as("every mode indexed exactly the topic's records").isTrue();
        String table = Files.readString(out.resolve("latest.md"));
        for (String mode : Bench.DEFAULT_MODES) {
            assertThat(table).contains("| " + mode + " |");
        }
        assertThat(table).doesNotContain("MISMATCH");
        assertThat(table).contains("| kes / ceiling (docs/s) |");
        assertThat(out.resolve("latest.png")).isNotEmptyFile();
        assertThat(out.resolve("rounds.csv")).isNotEmptyFile();
        assertThat(Files.readAllLines(out.resolve("rounds.csv"))).hasSize(1 + Bench.DEFAULT_MODES.size());
    }
}
