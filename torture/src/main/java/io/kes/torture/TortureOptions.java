package io.kes.torture;

import io.kes.stack.Engine;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * What {@code bin/kes torture} runs.
 *
 * @param schedules   how many schedules
 * @param seed        the first schedule's seed; schedule i uses {@code seed + i}, so any schedule of a
 *                    report can be rerun alone with {@code --seed <its seed> --schedules 1 --first i}
 * @param first       the index of the first schedule (which fault kinds it is sure to get)
 * @param keys        keys of the change stream
 * @param updates     changes of the keyed stream (the append-only topics get a quarter as many records each)
 * @param window      how long faults are injected and the rest of the stream produced
 * @param catchUp     how long the job may take to catch up after the window
 * @param bulk        the job's {@code bulk:} settings, a YAML flow map, e.g. {@code {max_docs: 250, max_in_flight: 1}}
 * @param esHeap      the search node's heap
 * @param extraFaults  at most this many faults of random kinds per schedule, besides its two sure kinds and the
 *                    rollover; {@code --no-faults} (-1) injects none at all: a baseline that must pass on any code
 * @param engine      the search engine the schedules write to: Elasticsearch, or OpenSearch (the newest line this
 *                    machine runs)
 * @param nodes       search nodes: 1, or a cluster of several, where kes sends bulks straight to the primaries'
 *                    nodes and a node is stalled while its primaries move ({@link FaultKind#NODE_STALL})
 * @param kinds       {@code --kinds}: the only kinds to inject, each in every schedule (extras drawn among them, no
 *                    rollover unless listed), to work one kind hard; empty: every kind, in turn
 * @param workDir     configs, job logs and checkpoints of each schedule
 * @param soakPeriod  {@code --soak MINUTES}: zero, or one schedule whose window is that long, with a fault every
 *                    this often in turn (a stop with a savepoint, a node restart, a rollover, a rescale) and the job's
 *                    resources sampled throughout ({@link SoakSampler})
 */
record TortureOptions(
        int schedules,
        long seed,
        int first,
        int keys,
        int updates,
        Duration window,
        Duration catchUp,
        String bulk,
        String esHeap,
        int extraFaults,
        Engine engine,
        int nodes,
        Set<FaultKind> kinds,
        Path workDir,
        Duration soakPeriod) {

    /** A soak's faults: one every this often. */
    static final Duration SOAK_FAULT_EVERY = Duration.ofMinutes(3);

    /** A soak's change stream: this many changes a second over its window, unless {@code --updates} says. */
    static final int SOAK_UPDATES_PER_SECOND = 200;

    boolean soak() {
        return !soakPeriod.isZero();
    }

    static final String USAGE =
            "usage: bin/kes torture [--schedules N] [--seed S] [--first I] [--keys K] [--updates U] "
                    + "[--window SECONDS] [--catch-up SECONDS] [--bulk '{max_docs: 250}'] [--es-heap 768m] [--extra-faults 2 | --no-faults] "
                    + "[--engine elasticsearch|opensearch] [--nodes 1|3] [--kinds rescale,job-kill] [--work-dir DIR]"
                    + " | bin/kes torture --soak MINUTES [--keys K] [--updates U] [--nodes 1|3]";

    static TortureOptions defaults(Path workDir) {
        return new TortureOptions(
                5,
                1,
                0,
                3000,
                60_000,
                Duration.ofSeconds(60),
                Duration.ofMinutes(3),
                "{max_docs: 250}",
                "768m",
                2,
                Engine.ELASTICSEARCH,
                1,
                Set.of(),
                workDir,
                Duration.ZERO);
    }

    static TortureOptions parse(String[] args, Path defaultWorkDir) {
        Parsed o = new Parsed(defaults(defaultWorkDir));
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            if (flag.equals("--no-faults")) {
                o.extraFaults = -1;
                continue;
            }
            if (flag.equals("-h") || flag.equals("--help")) {
                throw new IllegalArgumentException(USAGE);
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(flag + " needs a value. " + USAGE);
            }
            String v = args[++i];
            switch (flag) {
                case "--schedules" -> o.schedules = Integer.parseInt(v);
                case "--seed" -> o.seed = Long.parseLong(v);
                case "--first" -> o.first = Integer.parseInt(v);
                case "--keys" -> o.keys = Integer.parseInt(v);
                case "--updates" -> o.updates = Integer.parseInt(v);
                case "--window" -> o.window = Duration.ofSeconds(Long.parseLong(v));
                case "--catch-up" -> o.catchUp = Duration.ofSeconds(Long.parseLong(v));
                case "--bulk" -> o.bulk = v;
                case "--es-heap" -> o.esHeap = v;
                case "--extra-faults" -> o.extraFaults = Integer.parseInt(v);
                case "--engine" -> o.engine = Engine.parse(v);
                case "--nodes" -> o.nodes = Integer.parseInt(v);
                case "--kinds" -> o.kinds = kinds(v);
                case "--work-dir" -> o.workDir = Path.of(v);
                case "--soak" -> o.soakMinutes = Integer.parseInt(v);
                default -> throw new IllegalArgumentException("unknown option '" + flag + "'. " + USAGE);
            }
        }
        if (o.soakMinutes > 0) {
            // one long schedule, its faults periodic (FaultPlan.periodic), at a moderate steady rate
            o.schedules = 1;
            o.window = Duration.ofMinutes(o.soakMinutes);
            o.soakPeriod = SOAK_FAULT_EVERY;
            if (!updatesGiven(args)) {
                o.updates = (int) (SOAK_UPDATES_PER_SECOND * o.window.toSeconds());
            }
        }
        if (o.updates < o.keys) {
            throw new IllegalArgumentException("--updates " + o.updates + " is below --keys " + o.keys
                    + ": every key is written at least once, so give at least as many updates as keys");
        }
        if (o.nodes != 1 && o.nodes < 3) {
            throw new IllegalArgumentException("--nodes " + o.nodes + ": 1 (one node behind the fault proxy), or 3 or"
                    + " more (a cluster: the nodes left when one is stalled must still elect a master)");
        }
        List<FaultKind> notHere = o.kinds.stream()
                .filter(k -> !FaultKind.forNodes(o.nodes).contains(k))
                .toList();
        if (!notHere.isEmpty()) {
            throw new IllegalArgumentException("--kinds "
                    + notHere.stream().map(FaultKind::label).toList()
                    + " cannot be injected with --nodes " + o.nodes + ": the kinds there are "
                    + FaultKind.forNodes(o.nodes).stream().map(FaultKind::label).toList());
        }
        return o.build();
    }

    private static boolean updatesGiven(String[] args) {
        return List.of(args).contains("--updates");
    }

    /** {@code rescale,job-kill}: kinds by label, each at most once. */
    private static Set<FaultKind> kinds(String labels) {
        Set<FaultKind> kinds = EnumSet.noneOf(FaultKind.class);
        for (String label : labels.split(",")) {
            if (!label.isBlank()) {
                kinds.add(FaultKind.byLabel(label.trim()));
            }
        }
        if (kinds.isEmpty()) {
            throw new IllegalArgumentException("--kinds needs at least one kind, e.g. --kinds rescale");
        }
        return Collections.unmodifiableSet(kinds);
    }

    /** The options while the command line is read, one field per flag. */
    private static final class Parsed {
        int schedules;
        long seed;
        int first;
        int keys;
        int updates;
        Duration window;
        Duration catchUp;
        String bulk;
        String esHeap;
        int extraFaults;
        Engine engine;
        int nodes;
        Set<FaultKind> kinds;
        Path workDir;
        int soakMinutes;
        Duration soakPeriod;

        Parsed(TortureOptions o) {
            schedules = o.schedules;
            seed = o.seed;
            first = o.first;
            keys = o.keys;
            updates = o.updates;
            window = o.window;
            catchUp = o.catchUp;
            bulk = o.bulk;
            esHeap = o.esHeap;
            extraFaults = o.extraFaults;
            engine = o.engine;
            nodes = o.nodes;
            kinds = o.kinds;
            workDir = o.workDir;
            soakPeriod = o.soakPeriod;
        }

        TortureOptions build() {
            return new TortureOptions(
                    schedules,
                    seed,
                    first,
                    keys,
                    updates,
                    window,
                    catchUp,
                    bulk,
                    esHeap,
                    extraFaults,
                    engine,
                    nodes,
                    kinds,
                    workDir,
                    soakPeriod);
        }
    }
}
