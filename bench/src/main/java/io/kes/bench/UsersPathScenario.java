package io.kes.bench;

import io.kes.connector.routing.IndexRouting;
import io.kes.jobs.quickstart.SampleLogs;
import io.kes.stack.Http;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code bin/kes bench --scenario users-path}: kes the way users run it, {@code bin/kes run} as a
 * process of its own timed from start to exit ({@link KesProcessRuns}), beside the official sink
 * (its own JVM, 1 GB heap) and two loaders (the topic-reading one, a process timed as kes's is, and
 * the pre-serialized sender ceiling), alternated over rounds, per setup: 6 shards at
 * parallelism 2 (4 partitions), and 48 and 96 shards at parallelism 8 (8 partitions), where the
 * two writer topologies differ most (keyed: one buffer per shard; chained: one per shard in every
 * writer). Results: {@code users-path.md} and {@code users-path.csv} in {@code --out}.
 */
final class UsersPathScenario {

    /** One setup: the index's shards, the job's parallelism and the topic's partitions, and the modes run against it. */
    record Setup(int shards, int parallelism, int partitions, List<String> modes) {
        String name() {
            return shards + " shards, p=" + parallelism + ", " + partitions + " partitions";
        }
    }

    /**
     * kes keyed with {@code bulk.linger: 5s}: at 96 shards a slot gets too few documents per second
     * to fill {@code bulk.max_docs} within the default 1 s linger; this mode shows whether waiting
     * longer fills the bulks (the scale model says it should).
     */
    static final String KEYED_LONG_LINGER = "kes-keyed-linger5s";

    /**
     * kes chained with the Kafka consumer's own fetch defaults ({@link KesProcessRuns#EAGER_FETCH}, what
     * kes used before it held fetches for 64 KB or 100 ms): shows what fewer, fuller fetches cost or
     * save at full load. Not in a setup's default modes.
     */
    static final String CHAINED_EAGER_FETCH = "kes-chained-eager-fetch";

    /**
     * The loader that does what kes does without Flink: reads the topic, builds kes's ids and
     * single-shard bulks, sends them ({@link TopicLoader}), as a process timed as {@code bin/kes run}
     * is. The report's "x loader" ratios and targets compare against it when it ran.
     */
    static final String TOPIC_LOADER = "loader-topic";

    /**
     * The same loader ending as a bounded kes job does ({@code _refresh} and {@code _flush} of its
     * index, awaited): at its exit its documents are durable and searchable, as kes's are at
     * {@code bin/kes run}'s. The report holds kes's docs/s against both loaders.
     */
    static final String TOPIC_LOADER_DURABLE = "loader-topic-durable";

    /** The sender ceiling: bulks pre-serialized before its clock starts, sent from the bench JVM ({@link DirectLoader}). */
    static final String SENDER_LOADER = "loader";

    /** Every mode of this scenario; {@code --modes} picks some of them. */
    static final List<String> MODES = List.of(
            "kes-keyed",
            KEYED_LONG_LINGER,
            "kes-chained",
            CHAINED_EAGER_FETCH,
            "official",
            TOPIC_LOADER,
            TOPIC_LOADER_DURABLE,
            SENDER_LOADER);

    /** The writer topology a kes mode runs with. */
    static String topology(String mode) {
        return mode.startsWith("kes-keyed") ? "keyed" : "chained";
    }

    /** The consumer properties a kes mode adds ({@code kafka.properties}; empty: kes's defaults). */
    static String kafkaProperties(String mode) {
        return mode.equals(CHAINED_EAGER_FETCH) ? KesProcessRuns.EAGER_FETCH : "";
    }

    /** The {@code bulk.linger} a kes mode runs with, in seconds. */
    static double lingerSeconds(String mode) {
        return mode.equals(KEYED_LONG_LINGER) ? 5 : 1;
    }

    /**
     * The setups, by shard count. At 6 shards (two writers) keyed, as the runs were,
     * and chained, what {@code bulk.topology: auto} gives two writers.
     */
    static Setup setup(int shards) {
        return shards == Bench.SHARDS
                ? new Setup(
                        shards,
                        2,
                        4,
                        List.of(
                                "kes-keyed",
                                "kes-chained",
                                "official",
                                TOPIC_LOADER,
                                TOPIC_LOADER_DURABLE,
                                SENDER_LOADER))
                : new Setup(
                        shards,
                        8,
                        8,
                        MODES.stream()
                                .filter(m -> !m.equals(CHAINED_EAGER_FETCH))
                                .toList());
    }

    /**
     * One measured run.
     *
     * @param seconds        kes and loader-topic: process start to exit; official: process start to its job's end;
     *                       loader: first request to count
     * @param steadyDocsPerSecond the middle half of the documents over the time it took (loader: its whole run)
     * @param indexTotal     index operations on the primaries: above {@code docs} when a document was written twice
     * @param bulks          {@code _bulk} HTTP requests the node received
     * @param shardOps       shard-level bulk operations ({@code _stats/bulk total_operations})
     * @param steadyClientCpuSeconds client CPU from 25% to 75% of the documents indexed (official: its middle two of four windows)
     * @param peakHeapMb     kes: largest heap occupancy before a GC; NaN for the others
     * @param liveHeapMb     kes: largest heap occupancy after a GC; NaN for the others
     * @param tailSeconds    kes and loader-topic: every document indexed to exit; NaN for the others
     */
    record PathRun(
            Setup setup,
            String mode,
            int round,
            long docs,
            long counted,
            long indexTotal,
            double seconds,
            double startupSeconds,
            double steadyDocsPerSecond,
            long bulks,
            long shardOps,
            double esCpuSeconds,
            double clientCpuSeconds,
            double steadyClientCpuSeconds,
            double peakHeapMb,
            double liveHeapMb,
            boolean outOfMemory,
            double tailSeconds) {
        double docsPerSecond() {
            return docs / seconds;
        }
    }

    private final BenchOptions options;
    private final BenchServers servers;
    private final Map<String, String> environment = new LinkedHashMap<>();
    private final List<PathRun> runs = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();

    UsersPathScenario(BenchOptions options, BenchServers servers) {
        this.options = options;
        this.servers = servers;
    }

    /** Every setup, its rounds, the report; true when every run indexed every record exactly once and exited cleanly. */
    boolean run() throws Exception {
        environment.put("load average at start (1, 5, 15 min)", loadAverage());
        if (dataStream() || options.routingField != null) {
            environment.put(
                    "kes's route",
                    (dataStream()
                                    ? "a data stream per run (op create, from an index template of its own)"
                                    : "an index per run")
                            + (options.routingField != null
                                    ? ", routed by the records' `" + options.routingField + "`"
                                    : ""));
        }
        BenchServers.SingleNode stack = servers.startSingleNode(options);
        Http es = new Http(stack.esUrl());
        Machine.describe(es, environment);
        EsStats stats = new EsStats(stack.esUrl(), stack.local());
        ClientCpu clientCpu = new ClientCpu(servers::broker);
        boolean warm = false;
        boolean kesWarm = false;
        for (int shards : options.usersPathShards) {
            Setup all = setup(shards);
            Setup setup = new Setup(
                    all.shards(),
                    all.parallelism(),
                    all.partitions(),
                    options.modes == Bench.DEFAULT_MODES
                            ? all.modes()
                            : MODES.stream().filter(options.modes::contains).toList());
            BenchOptions o = options.forSetup(setup.partitions(), setup.parallelism());
            Bench.step(String.format("%s: %,d records into topic %s once", setup.name(), o.records, o.topic()));
            BenchTopic topic = new BenchTopic(o, stack.bootstrap());
            topic.loadOnce();
            IndexRouting routing =
                    BenchElasticsearch.routingOf(es, stack.esUrl(), "kes-bench-routing-probe", "async", shards);
            DirectLoader.Bulks bulks = DirectLoader.prepare(
                    new SampleLogs(Bench.SEED), topic.name(), o.partitions, o.records, Bench.DOCS_PER_BULK, routing);
            LoaderRuns loader = new LoaderRuns(es, stats, clientCpu, o.loaderThreads);
            if (!warm) {
                // untimed: the node's indexing path JIT-compiled, Kafka's offsets topic created, before any measured
                // run
                BenchElasticsearch.createIndex(es, "kes-bench-warmup", "async", shards);
                DirectLoader.Bulks warmUp = DirectLoader.prepare(
                        new SampleLogs(Bench.SEED),
                        topic.name(),
                        o.partitions,
                        Math.min(o.records, 200_000),
                        Bench.DOCS_PER_BULK,
                        routing);
                Bench.untimed(loader.run("warm-up", 0, "kes-bench-warmup", warmUp, List.of(stack.esUrl()), null));
                es.send("DELETE", "/kes-bench-warmup", null);
                topic.createOffsetsTopic();
                warm = true;
            }
            KesProcessRuns kes = new KesProcessRuns(o, topic, es, stack.esUrl(), clientCpu);
            if (!kesWarm && setup.modes().stream().anyMatch(m -> m.startsWith("kes"))) {
                // untimed: a user's bin/kes run starts from the class archive its first run built (bin/kes,
                // cds_archive); measured runs are later runs, the first run's cost is docs/benchmark.md's
                BenchElasticsearch.createIndex(es, "kes-bench-warmup-kes", "async", shards);
                KesProcessRuns.Result first = kes.run(
                        "kes-bench-warmup-kes", "index: kes-bench-warmup-kes", topology("kes-keyed"), 1.0, "", "1g");
                es.send("DELETE", "/kes-bench-warmup-kes", null);
                System.out.printf(
                        "  (untimed kes run, exit %d) %s%n", first.exitCode(), KesProcessRuns.awaitClassArchive());
                kesWarm = true;
            }
            TopicLoaderRuns topicLoader = new TopicLoaderRuns(o, topic, es, stack.esUrl(), clientCpu);
            try (OfficialRuns official = new OfficialRuns(o, topic, clientCpu, "1g")) {
                servers.closeFirst(official); // also on Ctrl-C
                for (int round = 1; round <= options.rounds; round++) {
                    for (String mode : Bench.roundOrder(setup.modes(), round)) {
                        String index = "kes-bench-up" + shards + "-" + mode + "-r" + round;
                        Bench.step(setup.name() + ", " + Bench.roundName(round, options.rounds) + ": " + mode + " -> "
                                + index);
                        createTarget(es, index, shards);
                        try {
                            PathRun run = switch (mode) {
                                case SENDER_LOADER ->
                                    loader(setup, round, index, es, stats, loader, bulks, stack.esUrl());
                                case TOPIC_LOADER, TOPIC_LOADER_DURABLE ->
                                    topicLoader(setup, mode, round, index, es, stats, topicLoader, routing, topic);
                                case "official" ->
                                    official(setup, round, index, es, stats, official, topic, stack.esUrl());
                                default -> kes(setup, mode, round, index, es, stats, kes, topic);
                            };
                            System.out.printf(
                                    "  %,.0f docs/s (steady %,.0f), %,d of %,d counted, index_total %,d, %.0f docs per _bulk,"
                                            + " %.2f shard ops per _bulk, heap %.0f MB before GC, %.0f after, start-up %.1f s, %.1f s from the"
                                            + " last document indexed to exit%s%n",
                                    run.docsPerSecond(),
                                    run.steadyDocsPerSecond(),
                                    run.counted(),
                                    run.docs(),
                                    run.indexTotal(),
                                    Stats.ratio(run.docs(), run.bulks()),
                                    Stats.ratio(run.shardOps(), run.bulks()),
                                    run.peakHeapMb(),
                                    run.liveHeapMb(),
                                    run.startupSeconds(),
                                    run.tailSeconds(),
                                    run.outOfMemory() ? ", OutOfMemoryError" : "");
                            if (run.counted() != run.docs() || run.indexTotal() != run.docs() || run.outOfMemory()) {
                                failures.add(setup.name() + " " + mode + " round " + round + ": counted "
                                        + run.counted() + ", index_total " + run.indexTotal() + " of " + run.docs()
                                        + (run.outOfMemory() ? ", OutOfMemoryError" : ""));
                            }
                            runs.add(run);
                        } catch (Exception e) {
                            failures.add(setup.name() + " " + mode + " round " + round + ": " + e);
                            System.out.println("  !! FAILED: " + e);
                            e.printStackTrace(System.out);
                        }
                        deleteTarget(es, index);
                    }
                }
            }
        }
        environment.put("load average at end (1, 5, 15 min)", loadAverage());
        failures.forEach(f -> System.out.println("FAILED: " + f));
        environment.put("failures", failures.isEmpty() ? "none" : String.join("; ", failures));
        String table = new UsersPathReport(options, runs, environment).write();
        System.out.println();
        System.out.println(table);
        return failures.isEmpty();
    }

    private PathRun kes(
            Setup setup,
            String mode,
            int round,
            String index,
            Http es,
            EsStats stats,
            KesProcessRuns kes,
            BenchTopic topic)
            throws Exception {
        long docs = topic.docsFrom(new long[setup.partitions()]);
        EsStats.Snapshot before = stats.snapshot();
        String target = (dataStream() ? "data_stream: " : "index: ")
                + index
                + (options.routingField != null ? ", routing: " + options.routingField : "");
        KesProcessRuns.Result r =
                kes.run(index, target, topology(mode), lingerSeconds(mode), kafkaProperties(mode), "1g");
        EsStats.Snapshot delta = stats.snapshot().minus(before);
        if (r.exitCode() != 0) {
            throw new IllegalStateException(
                    "bin/kes run exited with " + r.exitCode() + (r.outOfMemory() ? " after an OutOfMemoryError" : "")
                            + " (console: " + options.work.resolve("kes-run-" + index) + ")");
        }
        return timedRun(
                setup,
                mode,
                round,
                docs,
                index,
                es,
                stats,
                delta,
                r.timed(),
                r.peakHeapMb(),
                r.liveHeapMb(),
                r.outOfMemory());
    }

    /** The topic-reading loader as a process, measured as {@link #kes} measures {@code bin/kes run}. */
    private PathRun topicLoader(
            Setup setup,
            String mode,
            int round,
            String index,
            Http es,
            EsStats stats,
            TopicLoaderRuns topicLoader,
            IndexRouting routing,
            BenchTopic topic)
            throws Exception {
        long docs = topic.docsFrom(new long[setup.partitions()]);
        EsStats.Snapshot before = stats.snapshot();
        ProcessClock.Result r = topicLoader.run(index, routing, "1g", mode.equals(TOPIC_LOADER_DURABLE));
        EsStats.Snapshot delta = stats.snapshot().minus(before);
        return timedRun(setup, mode, round, docs, index, es, stats, delta, r, Double.NaN, Double.NaN, false);
    }

    /** A run of a process {@link ProcessClock} timed, with the index's counts and the node's share. */
    private static PathRun timedRun(
            Setup setup,
            String mode,
            int round,
            long docs,
            String index,
            Http es,
            EsStats stats,
            EsStats.Snapshot delta,
            ProcessClock.Result r,
            double peakHeapMb,
            double liveHeapMb,
            boolean outOfMemory)
            throws Exception {
        return new PathRun(
                setup,
                mode,
                round,
                docs,
                es.refreshAndCount(index),
                OfficialRuns.indexTotal(es, index),
                r.seconds(),
                r.startupSeconds(),
                r.steadyDocsPerSecond(),
                delta.bulkHttpRequests(),
                stats.shardBulkOperations(index),
                delta.cpuMillis() / 1000.0,
                r.clientCpuSeconds(),
                r.steadyClientCpuSeconds(),
                peakHeapMb,
                liveHeapMb,
                outOfMemory,
                r.tailSeconds());
    }

    /**
     * The official sink over the whole topic in a JVM of its own, timed as kes's process is (start
     * to end, start-up and the fresh JVM's JIT included), in 4 windows: the middle two are its steady
     * state, as the middle half is kes's.
     */
    private PathRun official(
            Setup setup,
            int round,
            String index,
            Http es,
            EsStats stats,
            OfficialRuns official,
            BenchTopic topic,
            String esUrl)
            throws Exception {
        OfficialRuns.ColdRun cold =
                official.runCold(stats, es, index, round, List.of(esUrl), new long[setup.partitions()], 4);
        List<Run> w = cold.windows();
        List<Run> middle = w.subList(1, w.size() - 1);
        return new PathRun(
                setup,
                "official",
                round,
                sum(w, Run::docs),
                sum(w, Run::counted),
                OfficialRuns.indexTotal(es, index),
                cold.seconds(),
                cold.startupSeconds(),
                sum(middle, Run::docs)
                        / middle.stream().mapToDouble(Run::seconds).sum(),
                sum(w, Run::bulks),
                stats.shardBulkOperations(index),
                w.stream().mapToDouble(Run::cpuSeconds).sum(),
                cold.clientCpuSeconds(),
                middle.stream().mapToDouble(Run::clientCpuSeconds).sum(),
                Double.NaN,
                Double.NaN,
                false,
                Double.NaN);
    }

    /** The loader's {@code _bulk} requests: its shard operations over the shards per request the node counted (retries included). */
    private PathRun loader(
            Setup setup,
            int round,
            String index,
            Http es,
            EsStats stats,
            LoaderRuns loader,
            DirectLoader.Bulks bulks,
            String esUrl)
            throws Exception {
        Run r = loader.run(SENDER_LOADER, round, index, bulks, List.of(esUrl), null);
        long shardOps = stats.shardBulkOperations(index);
        return new PathRun(
                setup,
                SENDER_LOADER,
                round,
                r.docs(),
                r.counted(),
                OfficialRuns.indexTotal(es, index),
                r.seconds(),
                Double.NaN,
                r.docsPerSecond(),
                Math.round(shardOps / r.shardsPerBulk()),
                shardOps,
                r.cpuSeconds(),
                r.clientCpuSeconds(),
                loader.lastSteadyClientCpuSeconds(),
                Double.NaN,
                Double.NaN,
                false,
                Double.NaN);
    }

    private boolean dataStream() {
        return options.usersPathTarget.equals("data-stream");
    }

    /** The run's index, or with {@code --target data-stream} the template of a data stream of that name. */
    private void createTarget(Http es, String name, int shards) throws Exception {
        if (!dataStream()) {
            BenchElasticsearch.createIndex(es, name, "async", shards);
            return;
        }
        deleteTarget(es, name);
        es.send(
                        "PUT",
                        "/_index_template/" + name,
                        "{\"index_patterns\":[\"" + name + "\"],\"data_stream\":{},\"priority\":500,"
                                + "\"template\":{\"settings\":{\"number_of_shards\":" + shards
                                + ",\"number_of_replicas\":0,\"refresh_interval\":\"-1\","
                                + "\"translog.durability\":\"async\"}}}")
                .requireOk("index template of data stream " + name);
        // kes's first write creates it: the integ-test-zip has no data-streams module, so no PUT _data_stream
    }

    private void deleteTarget(Http es, String name) throws Exception {
        if (dataStream()) {
            // without the data-streams module a data stream cannot be deleted: each run has one of its own
            es.send("DELETE", "/_data_stream/" + name, null);
        } else {
            es.send("DELETE", "/" + name, null);
        }
    }

    private static long sum(List<Run> runs, java.util.function.ToLongFunction<Run> f) {
        return runs.stream().mapToLong(f).sum();
    }

    private static String loadAverage() {
        try {
            return String.join(
                    ", ",
                    List.of(Files.readString(Path.of("/proc/loadavg")).split(" "))
                            .subList(0, 3));
        } catch (Exception e) {
            return "?";
        }
    }
}
