package io.kes.torture;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import java.util.Set;

/**
 * The faults of one schedule and when they happen, drawn from the schedule's seed (the same seed
 * gives the same plan; the moments are offsets from the start of the fault window). Every kind
 * that takes turns ({@link FaultKind#turn}) is in each schedule of its turn, so any {@link #TURNS}
 * consecutive schedules cover every kind: on one node, two or three kinds a schedule; on a cluster, where
 * every schedule stalls a node, one more. A rollover happens in every schedule (the alias route is
 * always there), and 1 to {@code maxExtras} more kinds are drawn at random from the kinds
 * {@link FaultKind#forNodes} allows. A {@link FaultKind#RESCALE rescale} drawn is two faults: to the
 * other parallelism and back.
 *
 * <p>Nothing here depends on the order in which {@link FaultKind} declares its kinds: the turns are
 * declared per kind, an extra is the kind whose label scores highest against the draw (rendezvous
 * hashing), and each fault's moment and amount come from the seed, its kind's label and its
 * occurrence. Adding a kind therefore only adds it to the schedules of its turn and replaces an
 * extra where it scores highest; every other fault of every schedule stays as it was, so the
 * coverage a run of seeds had cannot be reshuffled silently.
 */
record FaultPlan(List<Fault> faults) {

    /** Every kind that takes turns comes up once in any this many consecutive schedules. */
    static final int TURNS = 4;

    /**
     * One fault: at {@code atMillis} into the window; {@code amount} is seconds or a count, per kind,
     * or the parallelism a rescale restarts the job at.
     */
    record Fault(long atMillis, FaultKind kind, int amount) {
        @Override
        public String toString() {
            return kind.label() + "@" + atMillis / 1000.0 + "s" + (amount > 0 ? "(" + amount + ")" : "");
        }
    }

    /** A kind as the choice sees it: its label (its stable id) and its turn. */
    record Kind(String label, OptionalInt turn) {
        static Kind of(FaultKind kind) {
            return new Kind(kind.label(), kind.turn());
        }
    }

    /** The kinds of one schedule, by label: those whose turn it is (in label order), then the extras drawn. */
    record Selection(List<String> inTurn, List<String> extras) {}

    static FaultPlan draw(Random random, int scheduleIndex, long windowMillis, int maxExtras, int nodes) {
        return draw(random, scheduleIndex, windowMillis, maxExtras, nodes, Set.of());
    }

    /**
     * @param only the kinds to inject ({@code --kinds}); empty: every kind {@link FaultKind#forNodes}
     *     allows, in turn as above. Otherwise each of them is in every schedule, and the extras are
     *     drawn among them: no other kind, not even the rollover, unless listed.
     */
    static FaultPlan draw(
            Random random, int scheduleIndex, long windowMillis, int maxExtras, int nodes, Set<FaultKind> only) {
        if (maxExtras < 0) {
            return new FaultPlan(List.of());
        }
        List<FaultKind> allowed = FaultKind.forNodes(nodes).stream()
                .filter(k -> only.isEmpty() || only.contains(k))
                .toList();
        OptionalInt thisTurn = OptionalInt.of(scheduleIndex % TURNS);
        Selection selection = select(
                random,
                scheduleIndex,
                maxExtras,
                allowed.stream()
                        .map(k -> only.isEmpty() ? Kind.of(k) : new Kind(k.label(), thisTurn))
                        .toList());
        long base = random.nextLong();
        List<String> chosen = new ArrayList<>();
        if (only.isEmpty()) {
            if (allowed.contains(FaultKind.NODE_STALL)) {
                chosen.add(FaultKind.NODE_STALL.label());
            }
            chosen.add(FaultKind.ROLLOVER.label());
        }
        chosen.addAll(selection.inTurn());
        chosen.addAll(selection.extras());
        Map<String, Integer> occurrences = new HashMap<>();
        List<Fault> faults = new ArrayList<>();
        for (String label : chosen) {
            FaultKind kind = FaultKind.byLabel(label);
            // a rescale goes there and back: two faults, each at a moment of its own
            for (int i = 0; i < (kind == FaultKind.RESCALE ? 2 : 1); i++) {
                int occurrence = occurrences.merge(label, 1, Integer::sum);
                Random own = new Random(mix(base ^ mix(label.hashCode() + 31L * occurrence)));
                long at = (long) (windowMillis * (0.05 + 0.85 * own.nextDouble()));
                faults.add(new Fault(at, kind, amount(kind, own)));
            }
        }
        faults.sort(Comparator.comparingLong(Fault::atMillis));
        return new FaultPlan(withRescaleTargets(faults));
    }

    /**
     * A soak's faults: one every {@code periodMillis} from the first period on, until 90% of the
     * window, in turn a stop with a savepoint and resubmit, a node restart (kill -9, back 2 s
     * later), a rollover and a rescale (there, and back at the next turn): the operations a job
     * lives through week after week, repeated, so that what each leaves behind adds up.
     */
    static FaultPlan periodic(long windowMillis, long periodMillis) {
        List<FaultKind> turns =
                List.of(FaultKind.STOP_SAVEPOINT, FaultKind.ES_KILL, FaultKind.ROLLOVER, FaultKind.RESCALE);
        List<Fault> faults = new ArrayList<>();
        int n = 0;
        for (long at = periodMillis; at <= windowMillis * 0.9; at += periodMillis) {
            FaultKind kind = turns.get(n++ % turns.size());
            faults.add(new Fault(at, kind, kind == FaultKind.ES_KILL ? 2 : 0));
        }
        return new FaultPlan(withRescaleTargets(faults));
    }

    /**
     * A rescale's amount is the parallelism the job restarts at: the other one of {@link
     * JobFiles#PARALLELISM} and {@link JobFiles#RESCALED_PARALLELISM} than it runs at by then. Rescales
     * come in pairs, so the first goes up, the next comes back, and a schedule ends where it began.
     */
    private static List<Fault> withRescaleTargets(List<Fault> faults) {
        List<Fault> planned = new ArrayList<>();
        int parallelism = JobFiles.PARALLELISM;
        for (Fault f : faults) {
            if (f.kind() == FaultKind.RESCALE) {
                parallelism =
                        parallelism == JobFiles.PARALLELISM ? JobFiles.RESCALED_PARALLELISM : JobFiles.PARALLELISM;
                f = new Fault(f.atMillis(), f.kind(), parallelism);
            }
            planned.add(f);
        }
        return List.copyOf(planned);
    }

    /**
     * The kinds of schedule {@code scheduleIndex} among {@code kinds}, in whatever order they come:
     * those of its turn, and the extras, each the kind whose label scores highest against one draw
     * of {@code random} (which draws as many numbers whatever the kinds).
     */
    static Selection select(Random random, int scheduleIndex, int maxExtras, List<Kind> kinds) {
        List<String> inTurn = kinds.stream()
                .filter(k -> k.turn().isPresent() && k.turn().getAsInt() == scheduleIndex % TURNS)
                .map(Kind::label)
                .sorted()
                .toList();
        int extras = maxExtras <= 0 ? 0 : 1 + random.nextInt(maxExtras);
        List<String> drawn = new ArrayList<>();
        for (int i = 0; i < extras; i++) {
            long draw = random.nextLong();
            drawn.add(kinds.stream()
                    .max(Comparator.comparingLong(
                                    (Kind k) -> mix(draw ^ mix(k.label().hashCode())))
                            .thenComparing(Kind::label))
                    .orElseThrow()
                    .label());
        }
        return new Selection(inTurn, List.copyOf(drawn));
    }

    /** SplitMix64's finalizer: nearby inputs give unrelated outputs. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    private static int amount(FaultKind kind, Random random) {
        return switch (kind) {
            case ES_PAUSE -> 1 + random.nextInt(5);
            case REJECTION_STORM -> 2 + random.nextInt(7);
            case LOST_RESPONSES -> 1 + random.nextInt(6);
            case ES_KILL -> 1 + random.nextInt(3);
            case NODE_STALL -> 12 + random.nextInt(7);
            default -> 0;
        };
    }
}
