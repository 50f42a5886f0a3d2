package io.kes.torture;

import static org.assertj.core.api.Assertions.assertThat;

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
 * The proof of "effectively exactly once": five seeded schedules that between them inject every
 * fault kind into a running job (child JVM, real Kafka, real Elasticsearch behind the fault proxy),
 * after which every key's document must equal its last Kafka record and every append-only record
 * must be there once. Small stream, one extra random fault per schedule, to stay within a few
 * minutes on two cores; {@code bin/kes torture} runs longer ones (docs/torture.md).
 */
@Timeout(value = 14, unit = TimeUnit.MINUTES)
class TortureIT {

    @Test
    void everyKeyEndsAtItsLastKafkaValueWhateverTheFaults(@TempDir Path workDir) throws Exception {
        TortureOptions options = new TortureOptions(5, 1300, 0, 200, 2500, Duration.ofSeconds(15), Duration.ofMinutes(2),
                "{max_docs: 100}", "512m", 1, workDir);

        List<Schedule.Result> results = Torture.run(options, System.out);

        Set<FaultKind> injected = results.stream().flatMap(r -> r.injected().keySet().stream())
                .collect(Collectors.toCollection(() -> EnumSet.noneOf(FaultKind.class)));
        assertThat(injected).as("fault kinds injected").containsExactlyInAnyOrder(FaultKind.values());
        assertThat(results.stream().mapToInt(Schedule.Result::keysChecked).sum()).isEqualTo(5 * 2 * 200);
        List<String> failing = results.stream()
                .filter(r -> !r.mismatches().isEmpty() || r.notes().stream().anyMatch(n -> n.startsWith("did not catch up")))
                .map(r -> "schedule " + r.index() + " (seed " + r.seed() + ", faults " + Torture.faults(r.injected()) + "): "
                        + r.mismatches().size() + " mismatches, e.g. " + r.mismatches().stream().limit(3).toList() + "; notes "
                        + r.notes())
                .toList();
        assertThat(failing).as("schedules whose final state differs from Kafka (full report above)").isEmpty();
    }
}
