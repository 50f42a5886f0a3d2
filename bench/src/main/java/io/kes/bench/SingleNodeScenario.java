package io.kes.bench;

import io.kes.connector.routing.IndexRouting;
import io.kes.jobs.quickstart.SampleLogs;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.Http;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Kafka and one Elasticsearch node (started here, or the running stack given by {@code --es-url}):
 * every single-node mode (the kes jobs, the official sink, the direct loader's ceiling) alternated
 * over the rounds, then the long-running windows and the profiled run. Leaves Kafka and its topic
 * running when the jobs run on the 3-node cluster too ({@link #topic()}).
 */
final class SingleNodeScenario {

    private final BenchOptions options;
    private final BenchServers servers;
    private final Map<String, String> environment;
    private final Map<String, String> notRun;
    private final List<String> failures;
    private final Consumer<Run> measured;
    private String profileSummary;
    /** Samples the node in every measured round: where its CPU goes, per mode. */
    private Optional<NodeProfiler> nodeProfiler = Optional.empty();

    private BenchTopic topic;
    private ClientCpu clientCpu;

    /**
     * @param notRun   gets the modes that cannot run against this cluster, and why
     * @param failures gets each failed run; the others go on
     * @param measured gets each timed run
     */
    SingleNodeScenario(
            BenchOptions options,
            BenchServers servers,
            Map<String, String> environment,
            Map<String, String> notRun,
            List<String> failures,
            Consumer<Run> measured) {
        this.options = options;
        this.servers = servers;
        this.environment = environment;
        this.notRun = notRun;
        this.failures = failures;
        this.measured = measured;
    }

    /** Kafka and its topic, for the jobs on 3 nodes; null before {@link #run()}. */
    BenchTopic topic() {
        return topic;
    }

    ClientCpu clientCpu() {
        return clientCpu;
    }

    /** The profiler's summary of the profiled kes run, or null without {@code --profile}. */
    String profileSummary() {
        return profileSummary;
    }

    /** Where the node's CPU went per mode (a markdown table), or null when it was not profiled. */
    String nodeProfileSummary() {
        return nodeProfiler.map(NodeProfiler::summary).orElse(null);
    }

    /** Kafka and one node: every kes mode and the ceiling, alternated over the rounds. */
    void run() throws Exception {
        BenchServers.SingleNode stack = servers.startSingleNode(options);
        String esUrl = stack.esUrl();
        String bootstrap = stack.bootstrap();
        List<ElasticsearchNode> local = stack.local();
        Http es = new Http(esUrl);
        Machine.describe(es, environment);
        EsStats stats = new EsStats(esUrl, local);
        clientCpu = new ClientCpu(servers::broker);

        Bench.step(String.format(
                "Loading %,d JSON log records (~500 bytes, seed %d) into topic %s (%d partitions) once",
                options.records, Bench.SEED, options.topic(), options.partitions));
        topic = new BenchTopic(options, bootstrap);
        topic.loadOnce();
        System.out.println("  each timed run indexes " + topic.describeSlice());
        DirectLoader.Bulks ceilingBulks = null;
        if (options.modes.contains("ceiling")) {
            IndexRouting routing = BenchElasticsearch.routingOf(es, esUrl, "kes-bench-routing-probe", "async");
            Bench.step(String.format(
                    "Pre-serializing %,d documents into single-shard bulks of %d for the ceiling",
                    topic.sliceDocs(), Bench.DOCS_PER_BULK));
            ceilingBulks = DirectLoader.prepare(
                    new SampleLogs(Bench.SEED),
                    topic.name(),
                    options.partitions,
                    options.records,
                    topic.sliceFrom(),
                    Bench.DOCS_PER_BULK,
                    routing);
        }
        KesRuns kes = new KesRuns(options, topic, es, List.of(esUrl), bootstrap, clientCpu, servers);
        OfficialRuns official = new OfficialRuns(options, topic, clientCpu);
        servers.closeFirst(official);
        List<String> modes = new ArrayList<>(options.modes);
        if (modes.contains("official")) {
            OfficialRuns.whyNot(BenchElasticsearch.esMajor(es)).ifPresent(why -> {
                notRun.put("official", why);
                modes.remove("official");
                System.out.println("  [official] " + why);
            });
        }
        LoaderRuns loader = new LoaderRuns(es, stats, clientCpu, options.loaderThreads);
        warmUp(es, esUrl, topic);
        nodeProfiler =
                options.profile && local.size() == 1 ? NodeProfiler.of(local.get(0), options.work) : Optional.empty();
        // Round 0 runs every mode untimed: both Elasticsearch and the job keep warming for several
        // runs (with one warm-up run per kes code path, every kes mode's round 1 still ran at 80% of
        // its round 3, with 4-5 s of JIT compilation).
        for (int round = options.warmUpRound ? 0 : 1; round <= options.rounds; round++) {
            for (String mode : Bench.roundOrder(modes, round)) {
                String index = "kes-bench-" + mode + "-r" + round;
                Bench.step("1 node, " + Bench.roundName(round, options.rounds) + ": " + mode + " -> " + index);
                BenchElasticsearch.createIndex(es, index, mode.equals("kes-request") ? "request" : "async");
                Optional<NodeProfiler> profiling = round > 0 ? nodeProfiler : Optional.empty();
                profiling.ifPresent(p -> p.start(mode));
                try {
                    Run run = switch (mode) {
                        case "ceiling" -> loader.run("ceiling", round, index, ceilingBulks, List.of(esUrl), null);
                        case "official" -> official.run(stats, es, index, mode, round, List.of(esUrl));
                        default -> kes.run(stats, index, mode, round, false);
                    };
                    profiling.ifPresent(p -> p.stop(run.docs()));
                    if (round > 0) {
                        indexWork(stats, mode, index);
                        measured.accept(run);
                    } else {
                        Bench.untimed(run);
                    }
                } catch (Exception e) {
                    profiling.ifPresent(p -> p.stop(0));
                    // one failed run must not lose the others: reported, and the bench exits non-zero
                    failures.add(mode + " round " + round + ": " + e);
                    System.out.println("  !! " + mode + " round " + round + " FAILED: " + e);
                    e.printStackTrace(System.out);
                }
                es.send("DELETE", "/" + index, null);
            }
        }
        if (options.windows > 1) {
            longRunning(es, esUrl, stats, kes, modes.contains("official") ? official : null, loader);
        }
        if (options.profile && options.modes.contains("kes")) {
            // Its own run, not one of the rounds: a profiler costs the job CPU, which would drag the kes median down.
            Bench.step("Profiling one more kes run (not part of the medians)");
            BenchElasticsearch.createIndex(es, "kes-bench-kes-profiled", "async");
            kes.run(stats, "kes-bench-kes-profiled", "kes", 0, true);
            profileSummary = kes.profileSummary();
            es.send("DELETE", "/kes-bench-kes-profiled", null);
        }
        kes.stop();
        official.close();
        boolean jobsOnThreeNodes = !options.skipMultiNode && options.multiNodeJobs && options.esUrl == null;
        if (servers.broker() != null && jobsOnThreeNodes) {
            Bench.step("Stopping the single node (Kafka stays: the jobs run on the 3-node cluster too)");
            for (ElasticsearchNode n : local) {
                servers.stop(n);
            }
        } else if (servers.broker() != null) {
            Bench.step("Stopping Kafka and the single node (the 3-node scenario needs the cores)");
            servers.stopBroker();
            for (ElasticsearchNode n : local) {
                servers.stop(n);
            }
        }
    }

    /**
     * The long-running mode: one kes job, one official-sink job and one direct load, each over the whole topic, each
     * measured in {@code --windows} windows of equal documents. The first window carries what a job
     * pays once (submission, consumer start-up, the JIT of code that runs per job); the later ones
     * are the steady state that the per-run rounds, one job submission per run, cannot isolate.
     * Rows {@code kes-long-w1} (the first window) and {@code kes-long} (median of the others), the
     * same for {@code official-long} and for {@code ceiling-long}, the direct loader's windows.
     */
    private void longRunning(
            Http es, String esUrl, EsStats stats, KesRuns kes, OfficialRuns official, LoaderRuns loader)
            throws Exception {
        long[] all = new long[options.partitions];
        List<String> longModes = new ArrayList<>(List.of("kes-long"));
        if (official != null) {
            longModes.add("official-long");
        }
        if (options.modes.contains("ceiling")) {
            longModes.add("ceiling-long");
        }
        warmUpMerges(es, esUrl, loader);
        for (String mode : longModes) {
            String index = "kes-bench-" + mode;
            Bench.step(String.format(
                    "Long-running mode: %s, one job over the whole topic (%,d docs) in %d windows -> %s",
                    mode, topic.docsFrom(all), options.windows, index));
            List<DirectLoader.Bulks> ceilingWindows = mode.equals("ceiling-long") ? ceilingWindows(es, esUrl) : null;
            BenchElasticsearch.createIndex(es, index, "async");
            nodeProfiler.ifPresent(p -> p.start(mode));
            try {
                List<Run> windows = switch (mode) {
                    case "kes-long" -> kes.run(stats, index, mode, 0, false, all, options.windows);
                    case "official-long" ->
                        official.run(stats, es, index, mode, 0, List.of(esUrl), all, options.windows);
                    default -> loader.windows(mode, index, ceilingWindows, esUrl);
                };
                nodeProfiler.ifPresent(
                        p -> p.stop(windows.stream().mapToLong(Run::docs).sum()));
                indexWork(stats, mode, index);
                measured.accept(windows.get(0).withMode(mode + "-w1"));
                windows.subList(1, windows.size()).forEach(measured);
            } catch (Exception e) {
                nodeProfiler.ifPresent(p -> p.stop(0));
                failures.add(mode + ": " + e);
                System.out.println("  !! " + mode + " FAILED: " + e);
                e.printStackTrace(System.out);
            }
            es.send("DELETE", "/" + index, null);
        }
    }

    /**
     * Untimed, before the long-running modes: the direct loader writes the whole topic into a
     * throw-away index. The per-run rounds' indices never grow enough to merge, so without this the
     * node's first segment merges, and the JIT compilation of their code, fell into whichever long
     * mode ran first: kes-long, whose node then spent 11 s/M in the JIT compiler and 27 s/M merging
     * against the later ceiling-long's 2 and 17, all other stages equal.
     */
    private void warmUpMerges(Http es, String esUrl, LoaderRuns loader) throws Exception {
        Bench.step(String.format(
                "Warm-up (untimed): the whole topic (%,d docs) into a throw-away index, so the node has merged before"
                        + " the long-running modes",
                options.records));
        BenchElasticsearch.createIndex(es, "kes-bench-merge-warmup", "async");
        Bench.untimed(loader.windows("merge-warmup", "kes-bench-merge-warmup", ceilingWindows(es, esUrl), esUrl)
                .get(0));
        es.send("DELETE", "/kes-bench-merge-warmup", null);
    }

    /**
     * What Lucene did to the run's index (commits, merges, segments), on stdout and beside the
     * node's profile: which commits a client asked for ({@code _flush}, as the fence does when a
     * translog sync is late) and how much merging the run's node did besides indexing.
     */
    private void indexWork(EsStats stats, String mode, String index) {
        try {
            EsStats.IndexWork work = stats.indexWork(index);
            System.out.println("  index " + index + ": " + work);
            nodeProfiler.ifPresent(p -> p.indexWork(mode, work));
        } catch (IOException | RuntimeException e) {
            System.out.println("  index " + index + ": no _stats (" + e + ")"); // a diagnosis; the run stands
        }
    }

    /**
     * The whole topic as the long-running ceiling's windows: pre-serialized single-shard bulks of
     * equal numbers of records, in the order they were produced, all built before the first window
     * starts (building them between windows would give the node pauses a stream never gives it).
     */
    private List<DirectLoader.Bulks> ceilingWindows(Http es, String esUrl) throws Exception {
        IndexRouting routing = BenchElasticsearch.routingOf(es, esUrl, "kes-bench-routing-probe", "async");
        System.out.printf(
                "  pre-serializing %,d documents into %d windows of single-shard bulks%n",
                options.records, options.windows);
        List<DirectLoader.Bulks> windows = new ArrayList<>();
        for (int w = 0; w < options.windows; w++) {
            windows.add(DirectLoader.prepare(
                    new SampleLogs(Bench.SEED),
                    topic.name(),
                    options.partitions,
                    options.records * w / options.windows,
                    options.records * (w + 1) / options.windows,
                    Bench.DOCS_PER_BULK,
                    routing));
        }
        return windows;
    }

    /**
     * Untimed: a short direct load into a throw-away index (JIT of the node's indexing path before
     * anything else), and a commit that makes Kafka create its offsets topic, which the first
     * checkpoint's offset commit would otherwise wait for. Round 0 then warms every mode.
     */
    private void warmUp(Http es, String esUrl, BenchTopic topic) throws Exception {
        long docs = Math.min(options.records, 200_000);
        Bench.step(String.format(
                "Warm-up (untimed): %,d documents by the direct loader, and Kafka's offsets topic", docs));
        IndexRouting routing = BenchElasticsearch.routingOf(es, esUrl, "kes-bench-warmup", "async");
        DirectLoader.Bulks bulks = DirectLoader.prepare(
                new SampleLogs(Bench.SEED), topic.name(), options.partitions, docs, Bench.DOCS_PER_BULK, routing);
        BenchElasticsearch.createIndex(es, "kes-bench-warmup", "async");
        DirectLoader.load(bulks, "kes-bench-warmup", List.of(esUrl), options.loaderThreads);
        es.send("DELETE", "/kes-bench-warmup", null);
        topic.createOffsetsTopic();
    }
}
