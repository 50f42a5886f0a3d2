package io.kes.torture;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * The faults of one schedule and when they happen, drawn from the schedule's seed (the same seed
 * gives the same plan; the moments are offsets from the start of the fault window). On one node,
 * schedule {@code i} always contains two kinds taken in turn from {@link FaultKind}'s order,
 * rollover left out, so any five consecutive schedules cover every kind. On a cluster, every
 * schedule stalls a node, and one more kind is taken in turn. A rollover happens in every schedule
 * (the alias route is always there), and 1 to {@code maxExtras} more kinds are drawn at random from
 * the kinds {@link FaultKind#forNodes} allows.
 */
record FaultPlan(List<Fault> faults) {

    /** One fault: at {@code atMillis} into the window; {@code amount} is seconds or a count, per kind. */
    record Fault(long atMillis, FaultKind kind, int amount) {
        @Override
        public String toString() {
            return kind.label() + "@" + atMillis / 1000.0 + "s" + (amount > 0 ? "(" + amount + ")" : "");
        }
    }

    static FaultPlan draw(Random random, int scheduleIndex, long windowMillis, int maxExtras, int nodes) {
        if (maxExtras < 0) {
            return new FaultPlan(List.of());
        }
        List<FaultKind> kinds = FaultKind.forNodes(nodes);
        List<FaultKind> inTurn = new ArrayList<>(kinds);
        inTurn.remove(FaultKind.ROLLOVER);
        List<FaultKind> chosen = new ArrayList<>();
        if (nodes == 1) {
            chosen.add(inTurn.get((2 * scheduleIndex) % inTurn.size()));
            chosen.add(inTurn.get((2 * scheduleIndex + 1) % inTurn.size()));
        } else {
            inTurn.remove(FaultKind.NODE_STALL);
            chosen.add(FaultKind.NODE_STALL);
            chosen.add(inTurn.get(scheduleIndex % inTurn.size()));
        }
        chosen.add(FaultKind.ROLLOVER);
        int extras = maxExtras <= 0 ? 0 : 1 + random.nextInt(maxExtras);
        for (int i = 0; i < extras; i++) {
            chosen.add(kinds.get(random.nextInt(kinds.size())));
        }
        List<Fault> faults = new ArrayList<>();
        for (FaultKind kind : chosen) {
            long at = (long) (windowMillis * (0.05 + 0.85 * random.nextDouble()));
            faults.add(new Fault(at, kind, amount(kind, random)));
        }
        faults.sort(Comparator.comparingLong(Fault::atMillis));
        return new FaultPlan(List.copyOf(faults));
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
