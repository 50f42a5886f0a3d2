package io.kes.torture;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Random;
import java.util.Set;
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

    /**
     * Issue 36: which schedules get which faults must not hang on {@link FaultKind}'s declaration
     * order. A kind added (here declared in the middle) joins the schedules of its turn and may win
     * an extra draw; every other kind of every schedule stays as it was.
     */
    @Test
    void addingAKindLeavesTheKindsOfEveryExistingScheduleAsTheyWere() {
        for (int nodes : new int[] {1, 3}) {
            List<FaultPlan.Kind> today =
                    FaultKind.forNodes(nodes).stream().map(FaultPlan.Kind::of).toList();
            List<FaultPlan.Kind> withNew = new ArrayList<>(today);
            withNew.add(2, new FaultPlan.Kind("new-kind", OptionalInt.of(1)));
            for (long seed = 0; seed < 10; seed++) {
                for (int i = 0; i < 20; i++) {
                    FaultPlan.Selection before = FaultPlan.select(new Random(seed), i, 3, today);
                    FaultPlan.Selection after = FaultPlan.select(new Random(seed), i, 3, withNew);
                    List<String> expectedInTurn = new ArrayList<>(before.inTurn());
                    if (i % FaultPlan.TURNS == 1) {
                        expectedInTurn.add("new-kind");
                    }
                    assertThat(after.inTurn())
                            .as("nodes %d seed %d schedule %d", nodes, seed, i)
                            .containsExactlyInAnyOrderElementsOf(expectedInTurn);
                    assertThat(after.extras()).hasSameSizeAs(before.extras());
                    for (int j = 0; j < before.extras().size(); j++) {
                        assertThat(after.extras().get(j))
                                .as("nodes %d seed %d schedule %d extra %d", nodes, seed, i, j)
                                .isIn(before.extras().get(j), "new-kind");
                    }
                }
            }
        }
    }

    /** The same kinds declared in another order choose the same kinds. */
    @Test
    void theDeclarationOrderOfTheKindsChangesNoSchedule() {
        List<FaultPlan.Kind> declared =
                FaultKind.forNodes(1).stream().map(FaultPlan.Kind::of).toList();
        List<FaultPlan.Kind> reversed = new ArrayList<>(declared);
        Collections.reverse(reversed);
        for (int i = 0; i < 12; i++) {
            assertThat(FaultPlan.select(new Random(i), i, 3, reversed))
                    .as("schedule %d", i)
                    .isEqualTo(FaultPlan.select(new Random(i), i, 3, declared));
        }
    }

    /** A fault's moment and amount hang on the seed, its kind and its occurrence, not on the other faults drawn. */
    @Test
    void aFaultsMomentDependsOnItsOwnKindOnly() {
        for (int i = 0; i < 8; i++) {
            FaultPlan.Fault rollover = FaultPlan.draw(new Random(7), i, 30_000, 0, 1).faults().stream()
                    .filter(f -> f.kind() == FaultKind.ROLLOVER)
                    .findFirst()
                    .orElseThrow();
            FaultPlan.Fault again = FaultPlan.draw(new Random(7), i + 1, 30_000, 0, 1).faults().stream()
                    .filter(f -> f.kind() == FaultKind.ROLLOVER)
                    .findFirst()
                    .orElseThrow();
            assertThat(again)
                    .as("schedule %d and %d: other kinds in turn, the same rollover", i, i + 1)
                    .isEqualTo(rollover);
        }
    }

    /**
     * Issue 37 item 7: a rescale is a kill -9 of the job restored at the other parallelism, drawn as
     * a pair so that every schedule with one scales up and back: the first restarts at 4 writers
     * (from the 2 every schedule starts at), the next at 2, and so on, whichever kinds come between.
     */
    @Test
    void aRescaleGoesToTheOtherParallelismAndBackInEveryScheduleThatHasOne() {
        int withRescales = 0;
        for (int nodes : new int[] {1, 3}) {
            for (long seed = 0; seed < 40; seed++) {
                for (int i = 0; i < 8; i++) {
                    List<Integer> parallelisms = FaultPlan.draw(new Random(seed), i, 30_000, 2, nodes).faults().stream()
                            .filter(f -> f.kind() == FaultKind.RESCALE)
                            .map(FaultPlan.Fault::amount)
                            .toList();
                    if (i % FaultPlan.TURNS == FaultKind.RESCALE.turn().getAsInt()) {
                        assertThat(parallelisms)
                                .as("nodes %d seed %d schedule %d: its turn", nodes, seed, i)
                                .isNotEmpty();
                    }
                    assertThat(parallelisms.size() % 2)
                            .as("nodes %d seed %d schedule %d: pairs %s", nodes, seed, i, parallelisms)
                            .isZero();
                    for (int j = 0; j < parallelisms.size(); j++) {
                        assertThat(parallelisms.get(j))
                                .as("nodes %d seed %d schedule %d: rescale %d of %s", nodes, seed, i, j, parallelisms)
                                .isEqualTo(j % 2 == 0 ? JobFiles.RESCALED_PARALLELISM : JobFiles.PARALLELISM);
                    }
                    withRescales += parallelisms.isEmpty() ? 0 : 1;
                }
            }
        }
        assertThat(withRescales).as("schedules with a rescale").isGreaterThan(2 * 40 * 2);
    }

    /** {@code --kinds}: only the kinds listed, each in every schedule, no rollover unless listed. */
    @Test
    void onlyTheListedKindsAreDrawnAndEachInEverySchedule() {
        for (int i = 0; i < 8; i++) {
            List<FaultKind> rescalesOnly =
                    FaultPlan.draw(new Random(i), i, 30_000, 2, 1, Set.of(FaultKind.RESCALE)).faults().stream()
                            .map(FaultPlan.Fault::kind)
                            .toList();
            assertThat(rescalesOnly).as("schedule %d", i).isNotEmpty().containsOnly(FaultKind.RESCALE);

            List<FaultKind> two = FaultPlan.draw(
                            new Random(i), i, 30_000, 0, 3, Set.of(FaultKind.RESCALE, FaultKind.JOB_KILL))
                    .faults()
                    .stream()
                    .map(FaultPlan.Fault::kind)
                    .toList();
            assertThat(two)
                    .as("schedule %d on a cluster, no extras", i)
                    .containsExactlyInAnyOrder(FaultKind.RESCALE, FaultKind.RESCALE, FaultKind.JOB_KILL);
        }
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

    @Test
    void aSoakTakesTurnsAtEachOperationEveryPeriodAndEveryRescaleGoesToTheOtherParallelism() {
        FaultPlan plan = FaultPlan.periodic(30 * 60_000, 3 * 60_000);

        assertThat(plan.faults())
                .extracting(FaultPlan.Fault::kind)
                .containsExactly(
                        FaultKind.STOP_SAVEPOINT,
                        FaultKind.ES_KILL,
                        FaultKind.ROLLOVER,
                        FaultKind.RESCALE,
                        FaultKind.STOP_SAVEPOINT,
                        FaultKind.ES_KILL,
                        FaultKind.ROLLOVER,
                        FaultKind.RESCALE,
                        FaultKind.STOP_SAVEPOINT);
        assertThat(plan.faults())
                .extracting(FaultPlan.Fault::atMillis)
                .startsWith(3 * 60_000L, 6 * 60_000L)
                .allMatch(at -> at <= 27 * 60_000L);
        assertThat(plan.faults().stream()
                        .filter(f -> f.kind() == FaultKind.RESCALE)
                        .map(FaultPlan.Fault::amount))
                .containsExactly(JobFiles.RESCALED_PARALLELISM, JobFiles.PARALLELISM);
    }
}
