package io.kes.bench;

import io.kes.connector.routing.IndexRouting;
import io.kes.jobs.quickstart.SampleLogs;
import io.kes.stack.ElasticsearchCluster;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.Http;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Three Elasticsearch nodes (1 GB heaps, one cluster) on this machine, written by the direct
 * loader: single-shard against mixed bulks, round-robin over the nodes, with and without the
 * {@link PauseInjector}; and single-shard bulks sent to the node that holds the shard's primary.
 * Then the jobs themselves, with and without pauses: kes, kes with mixed bulks and the official
 * sink, from the same Kafka topic as on one node (three nodes plus Kafka plus the job on two cores
 * measure CPU contention too, which is why the loader modes stay: they isolate what the nodes
 * receive). Every measured run's per-bulk latencies go to {@code latency-3n.csv} (the scale model's input).
 */
final class ThreeNodeScenario {

    private final BenchOptions options;
    private final BenchServers servers;
    private final Map<String, String> environment;
    private final long benchStarted;
    private final BenchTopic topic;
    private final ClientCpu clientCpu;
    private final Map<String, String> notRun;
    private final StringBuilder latencies = new StringBuilder("mode,round,ms\n");

    /** @param topic the Kafka topic the jobs read, or null when they cannot run here (then the loader modes only) */
    ThreeNodeScenario(
            BenchOptions options,
            BenchServers servers,
            Map<String, String> environment,
            long benchStarted,
            BenchTopic topic,
            ClientCpu clientCpu,
            Map<String, String> notRun) {
        this.options = options;
        this.servers = servers;
        this.environment = environment;
        this.benchStarted = benchStarted;
        this.topic = topic;
        this.clientCpu = clientCpu;
        this.notRun = notRun;
    }

    void run(Consumer<Run> measured) throws Exception {
        Bench.step("Starting a 3-node Elasticsearch cluster (1 GB heaps) on this machine");
        ElasticsearchCluster cluster = ElasticsearchCluster.start(
                "kes-bench-3n", 3, options.work, "mn", "1g", options.esVersion, servers::node);
        List<CpuQuota> quotas = limitCpu(cluster, options, environment);
        try {
            measure(cluster, measured);
        } finally {
            Bench.step("Stopping the 3-node cluster");
            for (ElasticsearchNode n : cluster.nodes()) {
                servers.stop(n);
            }
            quotas.forEach(CpuQuota::close);
        }
    }

    /**
     * Gives every node its own CPU budget, as if each ran on a machine of its own: a paused node's
     * share then idles, as it would in a real cluster, instead of going to the other nodes.
     */
    static List<CpuQuota> limitCpu(ElasticsearchCluster cluster, BenchOptions options, Map<String, String> environment)
            throws IOException {
        List<CpuQuota> quotas = new ArrayList<>();
        if (options.nodeCpus <= 0) {
            return quotas;
        }
        List<String> whyNot = new ArrayList<>();
        for (ElasticsearchNode n : cluster.nodes()) {
            var quota = CpuQuota.create("kes-bench-" + n.nodeDir().getFileName(), options.nodeCpus, whyNot);
            if (quota.isEmpty()) {
                System.out.println("  [cpu] no CPU quota per node (" + whyNot.get(0) + "): the nodes share the cores");
                quotas.forEach(CpuQuota::close);
                return List.of();
            }
            quota.get().add(ProcessHandle.of(n.process().orElseThrow().pid()).orElseThrow());
            quotas.add(quota.get());
        }
        System.out.printf(
                "  [cpu] each node limited to %.2f cores (cgroup cpu quota), as if on a machine of its own%n",
                options.nodeCpus);
        environment.put("3-node CPU", String.format("%.2f cores per node (cgroup quota)", options.nodeCpus));
        return quotas;
    }

    private void measure(ElasticsearchCluster cluster, Consumer<Run> measured) throws Exception {
        List<ElasticsearchNode> nodes = cluster.nodes();
        List<String> urls = cluster.urls();
        Http es = cluster.http();
        EsStats stats = new EsStats(urls.get(0), nodes);
        LoaderRuns loader = new LoaderRuns(es, stats, new ClientCpu(() -> null), options.loaderThreads);
        IndexRouting routing = BenchElasticsearch.routingOf(es, urls.get(0), "kes-bench-3n-routing-probe", "async");

        // The paused node: one that is not the elected master, so the pauses hit writes, not the cluster's
        // coordination.
        String master = es.get("/_cat/master?h=node").requireOk("master").body().trim();
        ElasticsearchNode victim = nodes.stream()
                .filter(n -> n != cluster.node(master))
                .findFirst()
                .orElseThrow();
        List<String> modes = new ArrayList<>(Bench.MULTI_NODE_MODES);
        if (options.primaryAware) {
            modes.addAll(Bench.PRIMARY_AWARE_MODES);
        }
        KesRuns kes = null;
        OfficialRuns official = null;
        if (options.multiNodeJobs && topic != null) {
            kes = new KesRuns(options, topic, es, urls, topic.bootstrap(), clientCpu, servers);
            official = new OfficialRuns(options, topic, clientCpu);
            servers.closeFirst(kes::stop);
            servers.closeFirst(official);
            for (String mode : Bench.MULTI_NODE_JOB_MODES) {
                var why = mode.contains("official")
                        ? OfficialRuns.whyNot(BenchElasticsearch.esMajor(es))
                        : java.util.Optional.<String>empty();
                if (why.isPresent()) {
                    notRun.put(mode, why.get());
                } else if (options.modes.contains(
                        KesRuns.baseMode(mode).replace("-aimd", ""))) { // kes-aimd runs with kes
                    modes.add(mode);
                }
            }
        }
        try {
            rounds(cluster, es, urls, stats, loader, routing, victim, modes, kes, official, measured);
        } finally {
            if (kes != null) {
                kes.stop();
                official.close();
            }
            Files.createDirectories(options.out);
            Files.writeString(options.out.resolve("latency-3n.csv"), latencies);
        }
    }

    private void rounds(
            ElasticsearchCluster cluster,
            Http es,
            List<String> urls,
            EsStats stats,
            LoaderRuns loader,
            IndexRouting routing,
            ElasticsearchNode victim,
            List<String> modes,
            KesRuns kes,
            OfficialRuns official,
            Consumer<Run> measured)
            throws Exception {
        // Round 0 runs every mode untimed: fresh nodes are cold, and with a CPU quota each node's JIT
        // warms slowly (after three warm-up loads the first measured round still ran at half the
        // speed of the second). Its times, warm and per mode, size the measured runs.
        long warmDocs = options.warmUpRound ? Math.min(options.multiNodeRecords, 200_000) : options.multiNodeRecords;
        Map<Boolean, DirectLoader.Bulks> bulks = prepare(warmDocs, routing);
        Map<String, Double> warmSeconds = new java.util.HashMap<>();
        Map<String, Double> jobSeconds = new java.util.HashMap<>();
        for (int round = options.warmUpRound ? 0 : 1; round <= options.multiNodeRounds; round++) {
            if (round == 1 && options.warmUpRound) {
                long docs = fitIntoBudget(warmSeconds, jobSeconds, warmDocs);
                if (docs != warmDocs) {
                    bulks = prepare(docs, routing);
                }
            }
            for (String mode : Bench.roundOrder(modes, round)) {
                long started = System.nanoTime();
                String index = "kes-bench-" + mode + "-r" + round;
                boolean pauses = mode.endsWith("-pause");
                Bench.step("3 nodes, " + Bench.roundName(round, options.multiNodeRounds) + ": " + mode + " -> " + index
                        + (pauses ? " (SIGSTOP " + victim.nodeDir().getFileName() + " 200 ms every 2 s)" : ""));
                BenchElasticsearch.createIndex(es, index, "async");
                PauseInjector injector = pauses ? new PauseInjector(victim, servers) : null;
                Run run;
                try {
                    if (injector != null) {
                        injector.start();
                    }
                    if (mode.startsWith("3n-kes")) {
                        run = kes.run(stats, index, mode, round, false);
                        record(mode, round, kes.lastLatencies());
                    } else if (mode.startsWith("3n-official")) {
                        run = official.run(stats, es, index, mode, round, urls);
                    } else {
                        run = loader.run(
                                mode,
                                round,
                                index,
                                bulks.get(!mode.startsWith("3n-mixed")),
                                urls,
                                mode.startsWith("3n-primary") ? primaries(es, index, cluster) : null);
                        record(mode, round, loader.lastLatencies());
                    }
                } finally {
                    if (injector != null) {
                        injector.stop();
                    }
                }
                es.send("DELETE", "/" + index, null).requireOk("deleting " + index);
                if (round > 0) {
                    measured.accept(run);
                } else {
                    (Bench.MULTI_NODE_JOB_MODES.contains(mode) ? jobSeconds : warmSeconds)
                            .put(mode, (System.nanoTime() - started) / 1e9);
                    Bench.untimed(run);
                }
            }
        }
    }

    /** Keeps a measured run's per-bulk latencies for latency-3n.csv. */
    private void record(String mode, int round, long[] millis) {
        if (round > 0) {
            for (long ms : millis) {
                latencies
                        .append(mode)
                        .append(',')
                        .append(round)
                        .append(',')
                        .append(ms)
                        .append('\n');
            }
        }
    }

    /** The same documents as single-shard bulks (for the single-shard and primary-aware modes) and as mixed ones. */
    private Map<Boolean, DirectLoader.Bulks> prepare(long docs, IndexRouting routing) {
        Bench.step(String.format("Pre-serializing %,d documents as single-shard and as mixed bulks", docs));
        return Map.of(
                true,
                        DirectLoader.prepare(
                                new SampleLogs(Bench.SEED),
                                options.topic(),
                                options.partitions,
                                docs,
                                Bench.DOCS_PER_BULK,
                                routing),
                false,
                        DirectLoader.prepare(
                                new SampleLogs(Bench.SEED),
                                options.topic(),
                                options.partitions,
                                docs,
                                Bench.DOCS_PER_BULK,
                                null));
    }

    /**
     * The default run must end within the budget: the documents per measured 3-node run that fit
     * into the time left, from how long each mode's untimed run of {@code warmDocs} took (index
     * creation, refresh, count and deletion included), capped at {@code --multinode-records}.
     */
    private long fitIntoBudget(Map<String, Double> warmSeconds, Map<String, Double> jobSeconds, long warmDocs) {
        if (options.budgetMinutes <= 0 || options.multiNodeRecordsGiven) {
            return options.multiNodeRecords;
        }
        double leftSeconds = options.budgetMinutes * 60 - (System.nanoTime() - benchStarted) / 1e9 - 20; // stopping
        double overheadPerRun = 4;
        double fixedPerRound = 0;
        double secondsPerDocPerRound = 0;
        for (double seconds : jobSeconds.values()) {
            fixedPerRound += seconds; // the jobs index the topic's slice, whatever the loader's documents
        }
        for (double seconds : warmSeconds.values()) {
            fixedPerRound += overheadPerRun;
            secondsPerDocPerRound += Math.max(seconds - overheadPerRun, 0.5) / warmDocs;
        }
        int rounds = options.multiNodeRounds;
        double preparePerDoc = 6e-5; // both sets of bulks, measured ~3 s per 100k documents each
        long fit = (long) ((leftSeconds - rounds * fixedPerRound) / (rounds * secondsPerDocPerRound + preparePerDoc));
        long docs = Math.min(options.multiNodeRecords, Math.max(50_000, fit / 10_000 * 10_000));
        System.out.printf(
                "  [budget] %.1f min left of %.0f, warm 3-node runs at %,.0f-%,.0f docs/s: %,d docs per measured 3-node run%n",
                leftSeconds / 60,
                options.budgetMinutes,
                warmDocs
                        / warmSeconds.values().stream()
                                .mapToDouble(Double::doubleValue)
                                .max()
                                .orElse(1),
                warmDocs
                        / warmSeconds.values().stream()
                                .mapToDouble(Double::doubleValue)
                                .min()
                                .orElse(1),
                docs);
        options.multiNodeRecords = docs;
        return docs;
    }

    /** The URL of the node holding each shard's primary, from {@code _cat/shards}. */
    private static String[] primaries(Http es, String index, ElasticsearchCluster cluster) throws IOException {
        String[] urls = new String[Bench.SHARDS];
        for (String line : es.get("/_cat/shards/" + index + "?h=shard,prirep,node")
                .requireOk("_cat/shards")
                .body()
                .split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 3 && f[1].equals("p")) {
                urls[Integer.parseInt(f[0])] = cluster.node(f[2]).url();
            }
        }
        for (int s = 0; s < Bench.SHARDS; s++) {
            if (urls[s] == null) {
                throw new IllegalStateException("no primary found for shard " + s + " of " + index);
            }
        }
        return urls;
    }
}
