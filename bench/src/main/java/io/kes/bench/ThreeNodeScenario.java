package io.kes.bench;

import io.kes.connector.routing.IndexRouting;
import io.kes.jobs.quickstart.SampleLogs;
import io.kes.stack.ElasticsearchCluster;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.Http;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Three Elasticsearch nodes (1 GB heaps, one cluster) on this machine, written by the direct
 * loader: single-shard against mixed bulks, round-robin over the nodes, with and without the
 * {@link PauseInjector}; and single-shard bulks sent to the node that holds the shard's primary.
 * The loader, not the kes job: three nodes plus Kafka plus a MiniCluster on two cores would measure
 * mostly CPU contention, and the comparison is about the bulks the nodes receive, which the loader
 * builds exactly as kes does (same routing code, same bulk size).
 */
final class ThreeNodeScenario {

    private final BenchOptions options;
    private final BenchServers servers;
    private final long benchStarted;

    ThreeNodeScenario(BenchOptions options, BenchServers servers, long benchStarted) {
        this.options = options;
        this.servers = servers;
        this.benchStarted = benchStarted;
    }

    void run(Consumer<Run> measured) throws Exception {
        Bench.step("Starting a 3-node Elasticsearch cluster (1 GB heaps) on this machine");
        ElasticsearchCluster cluster = ElasticsearchCluster.start("kes-bench-3n", 3, options.work, "mn", "1g", options.esVersion,
                servers::node);
        List<ElasticsearchNode> nodes = cluster.nodes();
        List<String> urls = cluster.urls();
        Http es = cluster.http();
        EsStats stats = new EsStats(urls.get(0), nodes);
        LoaderRuns loader = new LoaderRuns(es, stats, new ClientCpu(() -> null), options.loaderThreads);
        IndexRouting routing = Bench.routingOf(es, urls.get(0), "kes-bench-3n-routing-probe", "async");

        Bench.step("Warm-up (untimed): three loads into the 3-node cluster");
        DirectLoader.Bulks warm = DirectLoader.prepare(new SampleLogs(Bench.SEED), options.topic(), options.partitions,
                Math.min(options.multiNodeRecords, 100_000), Bench.DOCS_PER_BULK, routing);
        // Fresh nodes are cold: one load left the first 3-node round at a third of the later rounds'
        // speed. The last load's rate, warm, sizes the runs.
        DirectLoader.Result warmed = null;
        for (int i = 0; i < 3; i++) {
            Bench.createIndex(es, "kes-bench-3n-warmup", "async");
            warmed = DirectLoader.load(warm, "kes-bench-3n-warmup", urls, options.loaderThreads);
            es.send("DELETE", "/kes-bench-3n-warmup", null);
        }
        fitIntoBudget(warm.docs() / warmed.seconds());
        Bench.step(String.format("Pre-serializing %,d documents as single-shard and as mixed bulks", options.multiNodeRecords));
        Map<Boolean, DirectLoader.Bulks> bulks = Map.of(
                true, DirectLoader.prepare(new SampleLogs(Bench.SEED), options.topic(), options.partitions, options.multiNodeRecords,
                        Bench.DOCS_PER_BULK, routing),
                false, DirectLoader.prepare(new SampleLogs(Bench.SEED), options.topic(), options.partitions, options.multiNodeRecords,
                        Bench.DOCS_PER_BULK, null));
        // The paused node: one that is not the elected master, so the pauses hit writes, not the cluster's coordination.
        String master = es.get("/_cat/master?h=node").requireOk("master").body().trim();
        ElasticsearchNode victim = nodes.stream().filter(n -> n != cluster.node(master)).findFirst().orElseThrow();
        for (int round = 1; round <= options.multiNodeRounds; round++) {
            List<String> order = new ArrayList<>(Bench.MULTI_NODE_MODES);
            if (options.primaryAware) {
                order.addAll(Bench.PRIMARY_AWARE_MODES);
            }
            Collections.rotate(order, -(round - 1));
            for (String mode : order) {
                String index = "kes-bench-" + mode + "-r" + round;
                boolean pauses = mode.endsWith("-pause");
                Bench.step("3 nodes, round " + round + "/" + options.multiNodeRounds + ": " + mode + " -> " + index
                        + (pauses ? " (SIGSTOP " + victim.nodeDir().getFileName() + " 200 ms every 2 s)" : ""));
                Bench.createIndex(es, index, "async");
                PauseInjector injector = pauses ? new PauseInjector(victim, servers) : null;
                Run run;
                try {
                    if (injector != null) {
                        injector.start();
                    }
                    run = loader.run(mode, round, index, bulks.get(!mode.startsWith("3n-mixed")), urls,
                            mode.startsWith("3n-primary") ? primaries(es, index, cluster) : null);
                } finally {
                    if (injector != null) {
                        injector.stop();
                    }
                }
                measured.accept(run);
                es.send("DELETE", "/" + index, null).requireOk("deleting " + index);
            }
        }
        Bench.step("Stopping the 3-node cluster");
        for (ElasticsearchNode n : nodes) {
            servers.stop(n);
        }
    }

    /**
     * The default run must end within the budget: size the 3-node runs from the time left and the
     * rate the (untimed) warm-up load reached on the 3 nodes.
     */
    private void fitIntoBudget(double warmUpDocsPerSecond) {
        if (options.budgetMinutes <= 0 || options.multiNodeRecordsGiven) {
            return;
        }
        double leftSeconds = options.budgetMinutes * 60 - (System.nanoTime() - benchStarted) / 1e9;
        int modes = Bench.MULTI_NODE_MODES.size() + (options.primaryAware ? Bench.PRIMARY_AWARE_MODES.size() : 0);
        int runsLeft = modes * options.multiNodeRounds;
        // per run: index creation, refresh, count, delete (~5 s); pre-serialization ~3 s per 100k docs; stop ~10 s
        double perRun = (leftSeconds - 20) / runsLeft - 5;
        double rate = warmUpDocsPerSecond * 0.85; // pauses and mixed bulks are slower than the warm-up's single-shard bulks
        long fit = (long) (perRun / (1 / rate + 2 * 3e-5 / runsLeft));
        long docs = Math.min(options.multiNodeRecords, Math.max(50_000, fit / 10_000 * 10_000));
        System.out.printf("  [budget] %.1f min left of %.0f, 3-node warm-up at %,.0f docs/s: %,d docs per 3-node run%n",
                leftSeconds / 60, options.budgetMinutes, warmUpDocsPerSecond, docs);
        options.multiNodeRecords = docs;
    }

    /** The URL of the node holding each shard's primary, from {@code _cat/shards}. */
    private static String[] primaries(Http es, String index, ElasticsearchCluster cluster) throws IOException {
        String[] urls = new String[Bench.SHARDS];
        for (String line : es.get("/_cat/shards/" + index + "?h=shard,prirep,node").requireOk("_cat/shards").body().split("\n")) {
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
