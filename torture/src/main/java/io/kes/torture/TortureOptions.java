package io.kes.torture;

import java.nio.file.Path;
import java.time.Duration;

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
 * @param esHeap      Elasticsearch's heap
 * @param extraFaults  at most this many faults of random kinds per schedule, besides its two sure kinds and the
 *                    rollover; {@code --no-faults} (-1) injects none at all: a baseline that must pass on any code
 * @param workDir     configs, job logs and checkpoints of each schedule
 */
record TortureOptions(int schedules, long seed, int first, int keys, int updates, Duration window, Duration catchUp,
                      String bulk, String esHeap, int extraFaults, Path workDir) {

    static final String USAGE = "usage: bin/kes torture [--schedules N] [--seed S] [--first I] [--keys K] [--updates U] "
            + "[--window SECONDS] [--catch-up SECONDS] [--bulk '{max_docs: 250}'] [--es-heap 768m] [--extra-faults 2 | --no-faults] [--work-dir DIR]";

    static TortureOptions defaults(Path workDir) {
        return new TortureOptions(5, 1, 0, 3000, 60_000, Duration.ofSeconds(60), Duration.ofMinutes(3), "{max_docs: 250}", "768m", 2, workDir);
    }

    static TortureOptions parse(String[] args, Path defaultWorkDir) {
        TortureOptions o = defaults(defaultWorkDir);
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            if (flag.equals("--no-faults")) {
                o = o.with(o.schedules, o.seed, o.first, o.keys, o.updates, o.window, o.catchUp, o.bulk, o.esHeap, -1, o.workDir);
                continue;
            }
            if (flag.equals("-h") || flag.equals("--help")) {
                throw new IllegalArgumentException(USAGE);
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(flag + " needs a value. " + USAGE);
            }
            String v = args[++i];
            o = switch (flag) {
                case "--schedules" -> o.with(Integer.parseInt(v), o.seed, o.first, o.keys, o.updates, o.window, o.catchUp, o.bulk, o.esHeap, o.extraFaults, o.workDir);
                case "--seed" -> o.with(o.schedules, Long.parseLong(v), o.first, o.keys, o.updates, o.window, o.catchUp, o.bulk, o.esHeap, o.extraFaults, o.workDir);
                case "--first" -> o.with(o.schedules, o.seed, Integer.parseInt(v), o.keys, o.updates, o.window, o.catchUp, o.bulk, o.esHeap, o.extraFaults, o.workDir);
                case "--keys" -> o.with(o.schedules, o.seed, o.first, Integer.parseInt(v), o.updates, o.window, o.catchUp, o.bulk, o.esHeap, o.extraFaults, o.workDir);
                case "--updates" -> o.with(o.schedules, o.seed, o.first, o.keys, Integer.parseInt(v), o.window, o.catchUp, o.bulk, o.esHeap, o.extraFaults, o.workDir);
                case "--window" -> o.with(o.schedules, o.seed, o.first, o.keys, o.updates, Duration.ofSeconds(Long.parseLong(v)), o.catchUp, o.bulk, o.esHeap, o.extraFaults, o.workDir);
                case "--catch-up" -> o.with(o.schedules, o.seed, o.first, o.keys, o.updates, o.window, Duration.ofSeconds(Long.parseLong(v)), o.bulk, o.esHeap, o.extraFaults, o.workDir);
                case "--bulk" -> o.with(o.schedules, o.seed, o.first, o.keys, o.updates, o.window, o.catchUp, v, o.esHeap, o.extraFaults, o.workDir);
                case "--es-heap" -> o.with(o.schedules, o.seed, o.first, o.keys, o.updates, o.window, o.catchUp, o.bulk, v, o.extraFaults, o.workDir);
                case "--extra-faults" -> o.with(o.schedules, o.seed, o.first, o.keys, o.updates, o.window, o.catchUp, o.bulk, o.esHeap, Integer.parseInt(v), o.workDir);
                case "--work-dir" -> o.with(o.schedules, o.seed, o.first, o.keys, o.updates, o.window, o.catchUp, o.bulk, o.esHeap, o.extraFaults, Path.of(v));
                default -> throw new IllegalArgumentException("unknown option '" + flag + "'. " + USAGE);
            };
        }
        if (o.updates < o.keys) {
            throw new IllegalArgumentException("--updates " + o.updates + " is below --keys " + o.keys
                    + ": every key is written at least once, so give at least as many updates as keys");
        }
        return o;
    }

    private TortureOptions with(int schedules, long seed, int first, int keys, int updates, Duration window, Duration catchUp,
                                String bulk, String esHeap, int extraFaults, Path workDir) {
        return new TortureOptions(schedules, seed, first, keys, updates, window, catchUp, bulk, esHeap, extraFaults, workDir);
    }
}
