package io.kes.torture;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * {@code bin/kes torture}: runs seeded schedules of faults against the kes job and checks every
 * key's final state after each (docs/torture.md). Exits 1 on any mismatch or a job that did not
 * catch up.
 */
public final class Torture {

    private static final int MISMATCHES_SHOWN = 25;

    private Torture() {}

    public static void main(String[] args) throws Exception {
        TortureOptions options;
        try {
            options = TortureOptions.parse(
                    args,
                    Path.of(System.getProperty("kes.torture.dir", ".kes/torture"))
                            .toAbsolutePath());
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        List<Schedule.Result> results = run(options, System.out);
        System.exit(failed(results) ? 1 : 0);
    }

    /** Runs every schedule of {@code options} on servers of its own, printing as it goes and a summary at the end. */
    static List<Schedule.Result> run(TortureOptions options, PrintStream out) throws Exception {
        Path root = JobProcess.findRoot();
        out.printf(
                "kes torture: %d schedules on %s%s from seed %d, %d keys, %d updates, fault window %d s%s; work dir %s%n",
                options.schedules(),
                options.engine().displayName(),
                options.nodes() > 1 ? " (" + options.nodes() + " nodes)" : "",
                options.seed(),
                options.keys(),
                options.updates(),
                options.window().toSeconds(),
                options.kinds().isEmpty()
                        ? ""
                        : ", only "
                                + options.kinds().stream().map(FaultKind::label).toList(),
                options.workDir());
        List<Schedule.Result> results = new ArrayList<>();
        try (TortureServers servers = TortureServers.start(options.engine(), options.esHeap(), options.nodes())) {
            Schedule schedule = new Schedule(servers, options, root, out);
            for (int i = 0; i < options.schedules(); i++) {
                Schedule.Result r = schedule.run(options.first() + i, options.seed() + i);
                results.add(r);
                print(r, out);
            }
        }
        summary(results, out);
        return results;
    }

    static boolean failed(List<Schedule.Result> results) {
        return results.stream().anyMatch(r -> !r.mismatches().isEmpty() || didNotHold(r));
    }

    /** The job did not catch up, or a soak's resources grew: a failure without a mismatch. */
    private static boolean didNotHold(Schedule.Result r) {
        return r.notes().stream().anyMatch(n -> n.startsWith("did not catch up") || n.startsWith(SoakSampler.GREW));
    }

    private static void print(Schedule.Result r, PrintStream out) {
        out.printf(
                "schedule %d seed %d: faults %s | keys checked %d, records checked %d | mismatches %d%s | %d s%n",
                r.index(),
                r.seed(),
                faults(r.injected()),
                r.keysChecked(),
                r.recordsChecked(),
                r.mismatches().size(),
                r.duplicatesAcrossRollover() > 0
                        ? " | " + r.duplicatesAcrossRollover() + " replayed across the rollover (allowed)"
                        : "",
                r.took().toSeconds());
        r.notes().forEach(n -> out.println("  note: " + n));
        if (!r.mismatches().isEmpty()) {
            Map<String, Long> byRouteAndKind = new java.util.TreeMap<>();
            r.mismatches().forEach(m -> byRouteAndKind.merge(m.route() + " " + m.kind(), 1L, Long::sum));
            out.println("  mismatches by route: " + byRouteAndKind);
        }
        r.mismatches().stream().limit(MISMATCHES_SHOWN).forEach(m -> out.println("  MISMATCH " + m));
        if (r.mismatches().size() > MISMATCHES_SHOWN) {
            out.println("  ... and " + (r.mismatches().size() - MISMATCHES_SHOWN) + " more");
        }
    }

    private static void summary(List<Schedule.Result> results, PrintStream out) {
        Map<FaultKind, Integer> faults = new EnumMap<>(FaultKind.class);
        Map<Mismatch.Kind, Integer> kinds = new EnumMap<>(Mismatch.Kind.class);
        long keys = 0;
        long records = 0;
        int mismatches = 0;
        int failing = 0;
        for (Schedule.Result r : results) {
            r.injected().forEach((k, n) -> faults.merge(k, n, Integer::sum));
            r.mismatches().forEach(m -> kinds.merge(m.kind(), 1, Integer::sum));
            keys += r.keysChecked();
            records += r.recordsChecked();
            mismatches += r.mismatches().size();
            failing += !r.mismatches().isEmpty() || didNotHold(r) ? 1 : 0;
        }
        out.println();
        out.println("| schedules run | failing | keys checked | records checked | mismatches |");
        out.println("|---|---|---|---|---|");
        out.printf("| %d | %d | %d | %d | %d |%n", results.size(), failing, keys, records, mismatches);
        out.println();
        out.println("| fault | injected |");
        out.println("|---|---|");
        for (FaultKind k : FaultKind.values()) {
            out.printf("| %s | %d |%n", k.label(), faults.getOrDefault(k, 0));
        }
        if (!kinds.isEmpty()) {
            out.println();
            out.println("mismatches by kind: " + kinds);
            out.println("failing seeds: "
                    + results.stream()
                            .filter(r -> !r.mismatches().isEmpty() || didNotHold(r))
                            .map(r -> r.seed() + " (schedule " + r.index() + ")")
                            .toList());
        }
    }

    static String faults(Map<FaultKind, Integer> injected) {
        StringBuilder s = new StringBuilder();
        injected.forEach((k, n) -> s.append(s.length() == 0 ? "" : " ")
                .append(k.label())
                .append(" x")
                .append(n));
        return s.length() == 0 ? "none" : s.toString();
    }
}
