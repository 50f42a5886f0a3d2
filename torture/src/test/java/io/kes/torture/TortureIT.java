package io.kes.torture;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.stack.Engine;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proof of "effectively exactly once": seeded schedules that between them inject every fault
 * kind into a running job (child JVM, real Kafka, a real search node behind the fault proxy), after
 * which every key's document must equal its last Kafka record and every append-only record must be
 * there once. On Elasticsearch four schedules (any four consecutive ones cover every kind); on
 * OpenSearch the two whose sure kinds hit the search node itself (pause, rollover, kill -9,
 * connection resets) and no random extras (an OpenSearch restart takes a minute on two cores).
 * Small streams, one extra random fault per Elasticsearch schedule, to stay within a few minutes; {@code bin/kes torture} runs longer ones
 * (docs/torture.md). A job restart is the costliest fault here: the one rescale pair (2 -> 4 -> 2 writers, about
 * 20 s) falls in Elasticsearch schedule 2 only, its turn; none of these seeds draws it as an extra.
 */
@Timeout(value = 14, unit = TimeUnit.MINUTES)
class TortureIT {

    @Test
    void everyKeyEndsAtItsLastKafkaValueWhateverTheFaults(@TempDir Path workDir) throws Exception {
        List<Schedule.Result> results = Torture.run(options(4, 0, 1, Engine.ELASTICSEARCH, workDir), System.out);

        Set<FaultKind> injected = results.stream()
                .flatMap(r -> r.injected().keySet().stream())
                .collect(Collectors.toCollection(() -> EnumSet.noneOf(FaultKind.class)));
        assertThat(injected).as("fault kinds injected").containsExactlyInAnyOrderElementsOf(FaultKind.forNodes(1));
        assertEveryKeyChecked(results, 4);
        assertFinalStateMatchesKafka(results);
    }

    @Test
    void onOpenSearchTooEveryKeyEndsAtItsLastKafkaValueWhenTheNodeIsPausedKilledOrCutOff(@TempDir Path workDir)
            throws Exception {
        List<Schedule.Result> results = Torture.run(options(2, 3, 0, Engine.OPENSEARCH, workDir), System.out);

        Set<FaultKind> injected = results.stream()
                .flatMap(r -> r.injected().keySet().stream())
                .collect(Collectors.toCollection(() -> EnumSet.noneOf(FaultKind.class)));
        assertThat(injected)
                .as("fault kinds injected")
                .contains(FaultKind.ES_PAUSE, FaultKind.ROLLOVER, FaultKind.ES_KILL, FaultKind.CONNECTION_RESET);
        assertEveryKeyChecked(results, 2);
        assertFinalStateMatchesKafka(results);
    }

    /**
     * Issue 27 item 2 on three nodes: a node frozen while the cluster promotes its primaries
     * elsewhere, kes reading the new primaries and forgetting idle slots meanwhile (every second in
     * the tortured job), and its own job killed and restored; every key must still end on its last
     * value. Whether the slots' bulks queued behind the moved primary (the sequence of item 2) is
     * reported, not asserted: it depends on kes having a full queue for the node at the moment it
     * freezes, which is timing (this schedule on this machine: 3, 4, 5 and 0 runs when run alone,
     * 0 in three schedules over two full CI runs), and a red CI on timing with every key right
     * would stop everything from landing. {@code bin/kes torture --nodes 3} with several schedules
     * is where reach is measured (docs/torture-results).
     */
    @Test
    void onAClusterEveryKeyEndsAtItsLastKafkaValueWhenANodeStallsWhileItsPrimariesMove(@TempDir Path workDir)
            throws Exception {
        List<Schedule.Result> results = Torture.run(options(1, 1, 0, Engine.ELASTICSEARCH, 3, workDir), System.out);

        assertThat(results.get(0).injected()).containsKeys(FaultKind.NODE_STALL, FaultKind.JOB_KILL);
        assertEveryKeyChecked(results, 1);
        assertFinalStateMatchesKafka(results);
    }

    /**
     * Schedules {@code first .. first + schedules - 1}: schedule i is sure to get the kinds of turn i mod 4
     * ({@link FaultKind#turn}) and a rollover, plus up to {@code extraFaults} random ones.
     */
    private static TortureOptions options(int schedules, int first, int extraFaults, Engine engine, Path workDir) {
        return options(schedules, first, extraFaults, engine, 1, workDir);
    }

    private static TortureOptions options(
            int schedules, int first, int extraFaults, Engine engine, int nodes, Path workDir) {
        return new TortureOptions(
                schedules,
                1300 + first,
                first,
                200,
                2500,
                Duration.ofSeconds(15),
                Duration.ofMinutes(2),
                "{max_docs: 100}",
                "512m",
                extraFaults,
                engine,
                nodes,
                Set.of(),
                workDir,
                Duration.ZERO);
    }

    private static void assertEveryKeyChecked(List<Schedule.Result> results, int schedules) {
        assertThat(results.stream().mapToInt(Schedule.Result::keysChecked).sum())
                .isEqualTo(schedules * 2 * 200);
    }

    private static void assertFinalStateMatchesKafka(List<Schedule.Result> results) {
        List<String> failing = results.stream()
                .filter(r ->
                        !r.mismatches().isEmpty() || r.notes().stream().anyMatch(n -> n.startsWith("did not catch up")))
                .map(r -> "schedule " + r.index() + " (seed " + r.seed() + ", faults " + Torture.faults(r.injected())
                        + "): "
                        + r.mismatches().size() + " mismatches, e.g. "
                        + r.mismatches().stream().limit(3).toList() + "; notes "
                        + r.notes())
                .toList();
        assertThat(failing)
                .as("schedules whose final state differs from Kafka (full report above)")
                .isEmpty();
    }
}
