package io.kes.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A tiny smoke of {@code bin/kes bench}: its own Kafka and Elasticsearch, 20,000 records, one round
 * of every single-node mode but the official sink's, and the users-path scenario's loaders. Not a measurement: it checks that every mode
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

    /**
     * The users-path scenario's loaders, one round at 6 shards: the topic-reading one as a process
     * of its own (read, ids, routing, bulks, sends, exit 0), the same ending with a durable index,
     * and the sender ceiling. kes's
     * own mode there is {@code bin/kes run}, which runs from the repository's root, not from a
     * module's tests; its timing is the same {@link ProcessClock} the topic loader's goes through.
     */
    @Test
    void usersPathTopicLoaderIndexesEveryRecordOnceAndIsTheLoaderKesIsHeldAgainst() throws Exception {
        Path out = Path.of("target/bench-smoke/users-path");
        BenchOptions options = BenchOptions.parse(new String[] {
            "--scenario",
            "users-path",
            "--quick",
            "--records",
            "20000",
            "--shards",
            "6",
            "--modes",
            UsersPathScenario.TOPIC_LOADER + "," + UsersPathScenario.TOPIC_LOADER_DURABLE + ","
                    + UsersPathScenario.SENDER_LOADER,
            "--out",
            out.toString(),
            "--work",
            "target/bench-smoke/users-path-run"
        });

        boolean countsMatch = new Bench(options).run();

        assertThat(countsMatch)
                .as("every loader indexed exactly the topic's records, none twice")
                .isTrue();
        String table = Files.readString(out.resolve("users-path.md"));
        assertThat(table)
                .contains("| loader-topic |")
                .contains("| loader-topic-durable |")
                .contains("| loader |");
        assertThat(table).contains("kes / loader-topic (docs/s)").contains("kes / loader-topic-durable (docs/s;");
        List<String> csv = Files.readAllLines(out.resolve("users-path.csv"));
        assertThat(csv).hasSize(4);
        String[] topicRun = csv.stream()
                .filter(l -> l.contains(",loader-topic,"))
                .findFirst()
                .orElseThrow()
                .split(",");
        assertThat(Long.parseLong(topicRun[4])).as("counted").isEqualTo(20_000);
        assertThat(Long.parseLong(topicRun[5])).as("index_total").isEqualTo(20_000);
        assertThat(Double.parseDouble(topicRun[12])).as("client CPU s").isPositive();
    }
}
