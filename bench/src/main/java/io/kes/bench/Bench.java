package io.kes.bench;

import io.kes.connector.cluster.ClusterMetadataClient;
import io.kes.connector.routing.IndexRouting;
import io.kes.connector.routing.IndexRoutingTable;
import io.kes.jobs.quickstart.SampleLogs;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.Http;
import io.kes.stack.KafkaBroker;
import io.kes.stack.Ports;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.http.HttpHost;
import org.elasticsearch.client.RestClient;

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

    static final List<String> SINGLE_NODE_MODES = List.of("kes", "kes-30s", "kes-mixed", "kes-request", "official", "ceiling");
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
    static final List<String> MULTI_NODE_JOB_MODES = List.of("3n-kes", "3n-kes-mixed", "3n-official",
            "3n-kes-pause", "3n-kes-mixed-pause", "3n-official-pause", "3n-kes-aimd-pause");

    private final BenchOptions options;
    private final BenchServers servers = new BenchServers();
    private final List<Run> runs = new CopyOnWriteArrayList<>();
    private final List<String> failures = new CopyOnWriteArrayList<>();
    private final Map<String, String> environment = new LinkedHashMap<>();
    /** Modes that could not run against this cluster, and why (the table says so in their row). */
    private final Map<String, String> notRun = new LinkedHashMap<>();
    private String profileSummary;
    private long started;
    /** Kafka and its topic, kept for the 3-node part when the jobs run there too; null with --es-url. */
    private BenchTopic topic;
    private ClientCpu clientCpu;

    Bench(BenchOptions options) {
        this.options = options;
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("--model-from")) {
            Path csv = Path.of(args[1]);
            Path rounds = csv.resolveSibling("rounds.csv");
            System.out.println(ScaleModel.write(csv, Files.exists(rounds) ? Report.docsPerSecondFromCsv(rounds) : Map.of()));
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
            singleNode();
            if (!options.skipMultiNode) {
                if (options.esUrl != null) {
                    step("3-node scenario skipped: it needs nodes started by the bench (not --es-url)");
                } else {
                    try {
                        new ThreeNodeScenario(options, servers, environment, started, topic, clientCpu, notRun).run(this::measured);
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
    static List<String> roundOrder(List<String> modes, int round) {
        List<String> order = new ArrayList<>(modes);
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
            System.out.println("  !! COUNT MISMATCH: expected " + run.docs() + ", Elasticsearch holds " + run.counted());
        }
        runs.add(run);
    }

    /** Kafka and one node: every kes mode and the ceiling, alternated over the rounds. */
    private void singleNode() throws Exception {
        String esUrl;
        String bootstrap;
        List<ElasticsearchNode> local = new ArrayList<>();
        if (options.esUrl != null) {
            esUrl = options.esUrl.replaceAll("/+$", "");
            bootstrap = options.kafka;
            step("Using the running stack: Elasticsearch " + esUrl + ", Kafka " + bootstrap);
        } else {
            deleteRecursively(options.work);
            Files.createDirectories(options.work);
            step("Starting Kafka and one Elasticsearch node (1 GB heap) under " + options.work);
            KafkaBroker broker = KafkaBroker.fixed(options.work.resolve("kafka").toAbsolutePath(), Ports.free(), Ports.free());
            servers.broker(broker);
            Thread kafkaStart = new Thread(broker::start);
            kafkaStart.start();
            ElasticsearchNode node = ElasticsearchNode.builder()
                    .version(options.esVersion)
                    .nodeDir(options.work.resolve("es-single").toAbsolutePath())
                    .heap("1g")
                    .build();
            servers.node(node);
            node.start();
            kafkaStart.join();
            local.add(node);
            esUrl = node.url();
            bootstrap = broker.bootstrapServers();
        }
        Http es = new Http(esUrl);
        describeMachine(es);
        EsStats stats = new EsStats(esUrl, local);
        clientCpu = new ClientCpu(servers::broker);

        step(String.format("Loading %,d JSON log records (~500 bytes, seed %d) into topic %s (%d partitions) once",
                options.records, SEED, options.topic(), options.partitions));
        topic = new BenchTopic(options, bootstrap);
        topic.loadOnce();
        System.out.println("  each timed run indexes " + topic.describeSlice());
        DirectLoader.Bulks ceilingBulks = null;
        if (options.modes.contains("ceiling")) {
            IndexRouting routing = routingOf(es, esUrl, "kes-bench-routing-probe", "async");
            step(String.format("Pre-serializing %,d documents into single-shard bulks of %d for the ceiling", topic.sliceDocs(), DOCS_PER_BULK));
            ceilingBulks = DirectLoader.prepare(new SampleLogs(SEED), topic.name(), options.partitions, options.records,
                    topic.sliceFrom(), DOCS_PER_BULK, routing);
        }
        KesRuns kes = new KesRuns(options, topic, es, List.of(esUrl), bootstrap, clientCpu, servers);
        OfficialRuns official = new OfficialRuns(options, topic, clientCpu);
        servers.closeFirst(official);
        List<String> modes = new ArrayList<>(options.modes);
        if (modes.contains("official")) {
            OfficialRuns.whyNot(esMajor(es)).ifPresent(why -> {
                notRun.put("official", why);
                modes.remove("official");
                System.out.println("  [official] " + why);
            });
        }
        LoaderRuns loader = new LoaderRuns(es, stats, clientCpu, options.loaderThreads);
        warmUp(es, esUrl, topic);
        // Round 0 runs every mode untimed: both Elasticsearch and the job keep warming for several
        // runs (with one warm-up run per kes code path, every kes mode's round 1 still ran at 80% of
        // its round 3, with 4-5 s of JIT compilation).
        for (int round = options.warmUpRound ? 0 : 1; round <= options.rounds; round++) {
            for (String mode : roundOrder(modes, round)) {
                String index = "kes-bench-" + mode + "-r" + round;
                step("1 node, " + roundName(round, options.rounds) + ": " + mode + " -> " + index);
                createIndex(es, index, mode.equals("kes-request") ? "request" : "async");
                try {
                    Run run = switch (mode) {
                        case "ceiling" -> loader.run("ceiling", round, index, ceilingBulks, List.of(esUrl), null);
                        case "official" -> official.run(stats, es, index, mode, round, List.of(esUrl));
                        default -> kes.run(stats, index, mode, round, false);
                    };
                    if (round > 0) {
                        measured(run);
                    } else {
                        untimed(run);
                    }
                } catch (Exception e) {
                    // one failed run must not lose the others: reported, and the bench exits non-zero
                    failures.add(mode + " round " + round + ": " + e);
                    System.out.println("  !! " + mode + " round " + round + " FAILED: " + e);
                    e.printStackTrace(System.out);
                }
                es.send("DELETE", "/" + index, null);
            }
        }
        if (options.windows > 1) {
            longRunning(es, esUrl, stats, kes, modes.contains("official") ? official : null);
        }
        if (options.profile && options.modes.contains("kes")) {
            // Its own run, not one of the rounds: a profiler costs the job CPU, which would drag the kes median down.
            step("Profiling one more kes run (not part of the medians)");
            createIndex(es, "kes-bench-kes-profiled", "async");
            kes.run(stats, "kes-bench-kes-profiled", "kes", 0, true);
            profileSummary = kes.profileSummary();
            es.send("DELETE", "/kes-bench-kes-profiled", null);
        }
        kes.stop();
        official.close();
        boolean jobsOnThreeNodes = !options.skipMultiNode && options.multiNodeJobs && options.esUrl == null;
        if (servers.broker() != null && jobsOnThreeNodes) {
            step("Stopping the single node (Kafka stays: the jobs run on the 3-node cluster too)");
            for (ElasticsearchNode n : local) {
                servers.stop(n);
            }
        } else if (servers.broker() != null) {
            step("Stopping Kafka and the single node (the 3-node scenario needs the cores)");
            servers.stopBroker();
            for (ElasticsearchNode n : local) {
                servers.stop(n);
            }
        }
    }

    /**
     * The long-running mode: one kes job and one official-sink job, each over the whole topic, each
     * measured in {@code --windows} windows of equal documents. The first window carries what a job
     * pays once (submission, consumer start-up, the JIT of code that runs per job); the later ones
     * are the steady state that the per-run rounds, one job submission per run, cannot isolate.
     * Rows {@code kes-long-w1} (the first window) and {@code kes-long} (median of the others), the
     * same for {@code official-long}.
     */
    private void longRunning(Http es, String esUrl, EsStats stats, KesRuns kes, OfficialRuns official) throws Exception {
        long[] all = new long[options.partitions];
        for (String mode : official == null ? List.of("kes-long") : List.of("kes-long", "official-long")) {
            String index = "kes-bench-" + mode;
            step(String.format("Long-running mode: %s, one job over the whole topic (%,d docs) in %d windows -> %s",
                    mode, topic.docsFrom(all), options.windows, index));
            createIndex(es, index, "async");
            try {
                List<Run> windows = mode.startsWith("kes")
                        ? kes.run(stats, index, mode, 0, false, all, options.windows)
                        : official.run(stats, es, index, mode, 0, List.of(esUrl), all, options.windows);
                measured(windows.get(0).withMode(mode + "-w1"));
                windows.subList(1, windows.size()).forEach(this::measured);
            } catch (Exception e) {
                failures.add(mode + ": " + e);
                System.out.println("  !! " + mode + " FAILED: " + e);
                e.printStackTrace(System.out);
            }
            es.send("DELETE", "/" + index, null);
        }
    }

    /**
     * Untimed: a short direct load into a throw-away index (JIT of the node's indexing path before
     * anything else), and a commit that makes Kafka create its offsets topic, which the first
     * checkpoint's offset commit would otherwise wait for. Round 0 then warms every mode.
     */
    private void warmUp(Http es, String esUrl, BenchTopic topic) throws Exception {
        long docs = Math.min(options.records, 200_000);
        step(String.format("Warm-up (untimed): %,d documents by the direct loader, and Kafka's offsets topic", docs));
        IndexRouting routing = routingOf(es, esUrl, "kes-bench-warmup", "async");
        DirectLoader.Bulks bulks = DirectLoader.prepare(new SampleLogs(SEED), topic.name(), options.partitions, docs, DOCS_PER_BULK, routing);
        createIndex(es, "kes-bench-warmup", "async");
        DirectLoader.load(bulks, "kes-bench-warmup", List.of(esUrl), options.loaderThreads);
        es.send("DELETE", "/kes-bench-warmup", null);
        topic.createOffsetsTopic();
    }

    /** A fresh index: 6 shards, no replicas, no refreshes during the load, the given translog durability. */
    static void createIndex(Http es, String index, String durability) throws IOException {
        es.send("DELETE", "/" + index, null);
        es.send("PUT", "/" + index, "{\"settings\":{\"number_of_shards\":" + SHARDS + ",\"number_of_replicas\":0,"
                + "\"refresh_interval\":\"-1\",\"translog.durability\":\"" + durability + "\"}}").requireOk("creating " + index);
        es.get("/_cluster/health/" + index + "?wait_for_status=green&timeout=60s").requireOk("health of " + index);
    }

    /** How a fresh 6-shard index routes on this cluster, calibrated by the connector's own routing table. */
    static IndexRouting routingOf(Http es, String url, String probeIndex, String durability) throws IOException {
        createIndex(es, probeIndex, durability);
        URI u = URI.create(url);
        try (RestClient client = RestClient.builder(new HttpHost(u.getHost(), u.getPort(), u.getScheme())).build()) {
            IndexRoutingTable table = new IndexRoutingTable(new ClusterMetadataClient(client), System::currentTimeMillis);
            return table.routingFor(probeIndex).orElseThrow(() -> new IllegalStateException("routing of " + probeIndex + " is not predictable"));
        } finally {
            es.send("DELETE", "/" + probeIndex, null);
        }
    }

    static int esMajor(Http es) throws IOException {
        // not GET /: the integ-test-zip distribution has no root endpoint
        String path = "/_nodes/_local?filter_path=nodes.*.version";
        Matcher m = Pattern.compile("\"version\"\\s*:\\s*\"(\\d+)\\.").matcher(es.get(path).requireOk("GET " + path).body());
        if (!m.find()) {
            throw new IllegalStateException("no version number in GET " + path);
        }
        return Integer.parseInt(m.group(1));
    }

    private void describeMachine(Http es) throws IOException {
        environment.put("machine", Runtime.getRuntime().availableProcessors() + " cores (nproc), "
                + memTotal() + " RAM, " + System.getProperty("os.name") + " " + System.getProperty("os.version"));
        environment.put("bench JVM", System.getProperty("java.vm.name") + " " + System.getProperty("java.version")
                + ", -Xmx" + (Runtime.getRuntime().maxMemory() >> 20) + "m");
        String root = es.get("/_nodes/_local/jvm?filter_path=nodes.*.version,nodes.*.jvm.version").body();
        Matcher v = Pattern.compile("\"version\":\"([^\"]+)\",\"jvm\":\\{\"version\":\"([^\"]+)\"").matcher(root);
        environment.put("Elasticsearch", v.find() ? v.group(1) + " (integ-test-zip) on JDK " + v.group(2) + ", 1 GB heap per node" : root);
        environment.put("date", java.time.Instant.now().toString());
    }

    private static String memTotal() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/meminfo"))) {
            return lines.filter(l -> l.startsWith("MemTotal")).findFirst()
                    .map(l -> String.format("%.1f GB", Long.parseLong(l.replaceAll("\\D", "")) / 1024.0 / 1024.0)).orElse("?");
        } catch (IOException e) {
            return "?";
        }
    }

    static double percentile(long[] values, double p) {
        if (values.length == 0) {
            return Double.NaN;
        }
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank))];
    }

    static double ratio(long a, long b) {
        return b == 0 ? Double.NaN : (double) a / b;
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
