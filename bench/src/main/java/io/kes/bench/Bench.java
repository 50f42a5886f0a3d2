package io.kes.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

/**
 * {@code bin/kes bench}: kes against a raw bulk loader on a real local stack (or one given by URL),
 * modes alternated over rounds, medians reported as a markdown table and a PNG chart
 * (docs/benchmark.md says what each number is).
 */
public final class Bench {

    static final String TOPIC_PREFIX = "kes-bench-logs";
    static final int SHARDS = 6;
    static final int DOCS_PER_BULK = 1000;
    static final long SEED = 42;

    static final List<String> SINGLE_NODE_MODES =
            List.of("kes", "kes-30s", "kes-mixed", "kes-request", "official", "ceiling");
    /**
     * The modes of the issue. {@code kes-30s} (checkpoints every 30 s) is left out by default: since
     * the fence runs while the job writes, the interval no longer shows in docs/s, and its run time
     * buys two more rounds of the others, whose medians over 3 rounds moved by up to 10% between
     * two runs of the same code.
     */
    static final List<String> DEFAULT_MODES = List.of("kes", "kes-mixed", "kes-request", "official", "ceiling");

    static final List<String> MULTI_NODE_MODES = List.of("3n-single", "3n-mixed", "3n-single-pause", "3n-mixed-pause");
    static final List<String> PRIMARY_AWARE_MODES = List.of("3n-primary", "3n-primary-pause");
    /**
     * The jobs themselves on 3 nodes: kes, kes with mixed bulks, the official sink; with and without
     * pauses; and kes with adaptive concurrency per node under pauses (against 3n-kes-pause: the
     * same job with bulk.adaptive_concurrency on).
     */
    static final List<String> MULTI_NODE_JOB_MODES = List.of(
            "3n-kes",
            "3n-kes-mixed",
            "3n-official",
            "3n-kes-pause",
            "3n-kes-mixed-pause",
            "3n-official-pause",
            "3n-kes-aimd-pause");

    private final BenchOptions options;
    private final BenchServers servers = new BenchServers();
    private final List<Run> runs = new CopyOnWriteArrayList<>();
    private final List<String> failures = new CopyOnWriteArrayList<>();
    private final Map<String, String> environment = new LinkedHashMap<>();
    /** Modes that could not run against this cluster, and why (the table says so in their row). */
    private final Map<String, String> notRun = new LinkedHashMap<>();

    private String profileSummary;
    private String nodeProfileSummary;
    private long started;

    Bench(BenchOptions options) {
        this.options = options;
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("--model-from")) {
            Path csv = Path.of(args[1]);
            Path rounds = csv.resolveSibling("rounds.csv");
            System.out.println(
                    ScaleModel.write(csv, Files.exists(rounds) ? Report.docsPerSecondFromCsv(rounds) : Map.of()));
            return;
        }
        if (args.length == 2 && args[0].equals("--chart-from")) {
            Path csv = Path.of(args[1]);
            Report.chartFromCsv(new BenchOptions(), csv, csv.resolveSibling("latest.png"));
            return;
        }
        Bench bench = new Bench(BenchOptions.parse(args));
        System.exit(bench.run() ? 0 : 1);
    }

    /** Runs everything; true when every run indexed exactly the expected number of documents. */
    boolean run() throws Exception {
        started = System.nanoTime();
        if (options.profile) {
            Profiler.prepare();
        }
        Thread hook = new Thread(servers::stopAll, "kes-bench-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            if (!options.scenario.equals("rounds")) {
                boolean ok = options.scenario.equals("users-path")
                        ? new UsersPathScenario(options, servers).run()
                        : new FixedLoadScenario(options, servers).run();
                System.out.printf(
                        "Bench wall time: %.1f min. Results in %s%n",
                        (System.nanoTime() - started) / 60e9, options.out.toAbsolutePath());
                return ok;
            }
            SingleNodeScenario singleNode =
                    new SingleNodeScenario(options, servers, environment, notRun, failures, this::measured);
            singleNode.run();
            profileSummary = singleNode.profileSummary();
            nodeProfileSummary = singleNode.nodeProfileSummary();
            BenchTopic topic = singleNode.topic();
            ClientCpu clientCpu = singleNode.clientCpu();
            if (!options.skipMultiNode) {
                if (options.esUrl != null) {
                    step("3-node scenario skipped: it needs nodes started by the bench (not --es-url)");
                } else {
                    try {
                        new ThreeNodeScenario(options, servers, environment, started, topic, clientCpu, notRun)
                                .run(this::measured);
                    } catch (Exception e) {
                        // the single-node results still get their table
                        failures.add("3-node scenario: " + e);
                        System.out.println("  !! 3-node scenario FAILED: " + e);
                        e.printStackTrace(System.out);
                    }
                }
            }
        } finally {
            servers.stopAll();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs anyway
            }
        }
        double minutes = (System.nanoTime() - started) / 60e9;
        environment.put("bench wall time", String.format("%.1f min", minutes));
        if (!failures.isEmpty()) {
            environment.put("FAILED runs", String.join("; ", failures));
        }
        Report report = new Report(options, runs, environment, profileSummary, notRun);
        report.nodeProfileSummary = nodeProfileSummary;
        Path latencies = options.out.resolve("latency-3n.csv");
        if (!options.skipMultiNode && Files.exists(latencies)) {
            Map<String, Double> docsPerSecond = new LinkedHashMap<>();
            report.rows().forEach(r -> docsPerSecond.put(r.mode(), r.docsPerSecond()));
            report.modelSummary = ScaleModel.write(latencies, docsPerSecond);
        }
        String table = report.write();
        System.out.println();
        System.out.println(table);
        System.out.printf("Bench wall time: %.1f min. Results in %s%n", minutes, options.out.toAbsolutePath());
        failures.forEach(f -> System.out.println("FAILED: " + f));
        return failures.isEmpty() && runs.stream().allMatch(r -> r.counted() == r.docs());
    }

    /** The modes in the order of one round: rotated every round, so that no mode always runs first (cold caches) or last. */
    static <T> List<T> roundOrder(List<T> modes, int round) {
        List<T> order = new ArrayList<>(modes);
        Collections.rotate(order, -round);
        return order;
    }

    /** {@code round 2/5}; round 0 is the untimed warm-up round. */
    static String roundName(int round, int rounds) {
        return round == 0 ? "warm-up round (untimed)" : "round " + round + "/" + rounds;
    }

    static void untimed(Run run) {
        System.out.printf("  (untimed) %,.0f docs/s%n", run.docsPerSecond());
    }

    private void measured(Run run) {
        System.out.println("  " + run);
        if (run.counted() != run.docs()) {
            System.out.println(
                    "  !! COUNT MISMATCH: expected " + run.docs() + ", Elasticsearch holds " + run.counted());
        }
        runs.add(run);
    }

    static void step(String title) {
        System.out.println();
        System.out.println("==> [" + java.time.LocalTime.now().withNano(0) + "] " + title);
    }

    static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
