package io.kes.torture;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FaultPlanTest {

    @Test
    void anyFiveConsecutiveSchedulesCoverEveryFaultKind() {
        for (int first = 0; first < 9; first++) {
            EnumSet<FaultKind> kinds = EnumSet.noneOf(FaultKind.class);
            for (int i = first; i < first + 5; i++) {
                FaultPlan.draw(new Random(i), i, 30_000, 2, 1).faults().forEach(f -> kinds.add(f.kind()));
            }
            assertThat(kinds)
                    .as("schedules %d..%d", first, first + 4)
                    .containsExactlyInAnyOrderElementsOf(FaultKind.forNodes(1));
        }
    }

    @Test
    void onAClusterEveryScheduleStallsANodeAndNoneUsesTheProxy() {
        EnumSet<FaultKind> kinds = EnumSet.noneOf(FaultKind.class);
        for (int i = 0; i < 5; i++) {
            List<FaultKind> planned = FaultPlan.draw(new Random(i), i, 30_000, 2, 3).faults().stream()
                    .map(FaultPlan.Fault::kind)
                    .toList();
            assertThat(planned).as("schedule %d", i).contains(FaultKind.NODE_STALL, FaultKind.ROLLOVER);
            kinds.addAll(planned);
        }
        assertThat(kinds).as("five consecutive schedules").containsExactlyInAnyOrderElementsOf(FaultKind.forNodes(3));
        assertThat(FaultKind.forNodes(1)).doesNotContain(FaultKind.NODE_STALL);
    }

    @Test
    void theSameSeedGivesTheSamePlanAndStream() {
        assertThat(FaultPlan.draw(new Random(42), 3, 30_000, 2, 1))
                .isEqualTo(FaultPlan.draw(new Random(42), 3, 30_000, 2, 1));
        Names names = new Names("p");
        assertThat(ChangeStream.draw(names, 7, 50, 500)).isEqualTo(ChangeStream.draw(names, 7, 50, 500));
    }

    @Test
    void faultsFallInsideTheWindowInOrderAndNoFaultsMeansNone() {
        List<FaultPlan.Fault> faults =
                FaultPlan.draw(new Random(1), 0, 10_000, 2, 1).faults();
        assertThat(faults).isSortedAccordingTo(java.util.Comparator.comparingLong(FaultPlan.Fault::atMillis));
        assertThat(faults).allSatisfy(f -> assertThat(f.atMillis()).isBetween(500L, 9_000L));
        assertThat(FaultPlan.draw(new Random(1), 0, 10_000, -1, 1).faults()).isEmpty();
    }

    @Test
    void everyKeyIsWrittenAndItsVersionsOnlyGrow() {
        Names names = new Names("p");
        List<ChangeStream.Out> stream = ChangeStream.draw(names, 3, 100, 2_000);
        java.util.Map<String, Long> last = new java.util.HashMap<>();
        for (ChangeStream.Out r : stream) {
            if (r.topic().equals(names.deletes()) && r.value() != null) {
                long v = Long.parseLong(r.value().replaceAll(".*\"v\":(\\d+).*", "$1"));
                assertThat(v).as(r.key()).isGreaterThan(last.getOrDefault(r.key(), 0L));
                last.put(r.key(), v);
            }
        }
        assertThat(last).hasSize(100);
        assertThat(stream.stream().filter(r -> r.value() == null))
                .isNotEmpty()
                .allSatisfy(r -> assertThat(r.topic()).isEqualTo(names.deletes()));
    }
}
