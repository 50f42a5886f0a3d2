package io.kes.bench;

import io.kes.stack.ElasticsearchCluster;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.Http;
import io.kes.stack.KafkaBroker;
import io.kes.stack.Ports;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code bin/kes bench --scenario fixed-load}: what users pay and see at a steady, moderate load
 * (issues 39 and 67). Three Elasticsearch nodes (1 GB heaps), one index of {@code --shards} shards
 * (6 by default, spread evenly over the nodes, no replicas, refreshed every second), a producer
 * writing {@code --rate} records a second for {@code --seconds} seconds while the job follows the
 * topic with {@code --writers} writers (2 by default); with and without one data node that is not the
 * elected master stopped for 1 s every 5 s. Per run: the indexed lag's and the search-visible lag's
 * percentiles ({@link IndexLag}, {@link VisibleLag}), documents per {@code _bulk} and per shard
 * operation ({@link BulkShape}), Elasticsearch's CPU per 1,000 documents ({@link EsCpuPerDocs}),
 * and the client's CPU per document over the whole run and in the steady window. {@link
 * FixedLoadRuns} runs one; results: {@code fixed-load.md}, {@code fixed-load.csv} and {@code
 * fixed-load-samples.csv} in {@code --out}.
 */
final class FixedLoadScenario {

    /** kes with the Kafka consumer's own fetch defaults ({@link #kafkaProperties}); not a default mode. */
    static final String EAGER_FETCH_MODE = "kes-eager-fetch";

    /**
     * kes with its defaults; with the keyed topology whatever the writer count (one buffer per shard
     * slot: at 2 writers, chained by default, each writer buffers every slot); with mixed bulks; with
     * {@code bulk.coalesce: 1s} (a buffer whose node has room waits up to 1 s for more documents: the
     * linger timer's behaviour before issue 39); with the Kafka consumer's own fetch defaults
     * ({@link #kafkaProperties}); the official sink (1,000 actions / 1 s interval).
     */
    static final List<String> MODES =
            List.of("kes", "kes-keyed", "kes-mixed", "kes-linger", EAGER_FETCH_MODE, "official");

    /** What a run without {@code --modes} compares: every mode but the experiment on the consumer. */
    static final List<String> DEFAULT_MODES =
            MODES.stream().filter(m -> !m.equals(EAGER_FETCH_MODE)).toList();

    /** The stall: one data node, not the master, stopped this long every period. */
    static final int STALL_MS = 1000;

    static final int STALL_PERIOD_MS = 5000;

    /** The sink options a kes mode adds to its job's {@code bulk:} map, before {@code --kes-bulk}'s. */
    static String bulkSettings(String mode, String extra) {
        String own = switch (mode) {
            case "kes" -> "";
            case "kes-keyed" -> "topology: keyed";
            case "kes-mixed" -> "shard_grouping: false";
            case "kes-linger" -> "coalesce: 1s";
            case EAGER_FETCH_MODE -> "";
            default -> throw new IllegalArgumentException("not a kes mode: " + mode);
        };
        return String.join(
                ", ", List.of(own, extra).stream().filter(s -> !s.isBlank()).toList());
    }

    /**
     * The consumer properties a kes mode adds ({@code kafka.properties}): {@code kes-eager-fetch} is
     * kes with the Kafka consumer's own fetch defaults ({@link KesProcessRuns#EAGER_FETCH}), a fetch
     * answered as soon as one record is there, which kes used before it held fetches for 64 KB or
     * 100 ms.
     */
    static String kafkaProperties(String mode) {
        return mode.equals(EAGER_FETCH_MODE) ? KesProcessRuns.EAGER_FETCH : "";
    }

    /** One system, with or without the stall. */
    record Variant(String mode, boolean stall) {
        String name() {
            return stall ? mode + "-stall" : mode;
        }
    }

    private final BenchOptions options;
    private final BenchServers servers;
    private final Map<String, String> environment = new LinkedHashMap<>();
    private final List<FixedLoadRuns.Result> runs = new ArrayList<>();
    /** The idle cluster's CPU in cores, one window per round ({@link FixedLoadRuns#idleCores}). */
    private final List<Double> idleCores = new ArrayList<>();

    private final List<String> failures = new ArrayList<>();

    FixedLoadScenario(BenchOptions options, BenchServers servers) {
        this.options = options;
        this.servers = servers;
    }

    /**
     * Warm-up passes before the measured runs, not reported: each a run of every mode, repeated until
     * a pass in which every run kept up ({@link #KEPT_UP_P99_MS}), at most {@link #WARM_UP_PASSES}.
     * The first runs on a fresh cluster fell 10-23 s behind the producer whatever the system (each
     * node's own JIT and first merges on its share of the CPU), which the variant that happened to
     * come first paid for; after one pass the first measured run still fell 3-6 s behind (2026-12-03,
     * two cluster starts of the same day), kes or the official sink alike.
     */
    private static void warmUp(FixedLoadRuns one, List<Variant> firstRound) {
        List<Variant> oneOfEachMode = new ArrayList<>();
        Set<String> modes = new HashSet<>();
        for (Variant v : firstRound) {
            if (modes.add(v.mode())) {
                oneOfEachMode.add(v);
            }
        }
        for (int pass = 1; pass <= WARM_UP_PASSES; pass++) {
            boolean keptUp = true;
            for (Variant v : oneOfEachMode) {
                Bench.step("fixed load, warm-up " + pass + " (not measured): " + v.name());
                try {
                    FixedLoadRuns.Result r = one.run(v, 0);
                    System.out.println("  " + r);
                    keptUp &= r.lag().p99() <= KEPT_UP_P99_MS;
                } catch (Exception e) {
                    System.out.println("  warm-up failed (the measured runs go on): " + e.getMessage());
                }
            }
            if (keptUp) {
                return;
            }
        }
    }

    /** A warm-up run kept up when its indexed lag's p99 stayed under this (the stall alone makes ~1.5 s). */
    static final long KEPT_UP_P99_MS = 2_000;

    static final int WARM_UP_PASSES = 3;

    /** The variants of one round, before rotation. */
    List<Variant> variants() {
        List<Variant> variants = new ArrayList<>();
        for (String mode : options.modes) {
            for (boolean stall : options.stalls) {
                variants.add(new Variant(mode, stall));
            }
        }
        return variants;
    }

    /** Every round of every variant, then the report; true when every run indexed every record exactly once. */
    boolean run() throws Exception {
        Bench.deleteRecursively(options.work);
        Files.createDirectories(options.work);
        Bench.step("Starting Kafka and a 3-node Elasticsearch cluster (1 GB heaps) under " + options.work);
        KafkaBroker kafka =
                KafkaBroker.fixed(options.work.resolve("kafka").toAbsolutePath(), Ports.free(), Ports.free());
        servers.broker(kafka);
        Thread kafkaStart = new Thread(kafka::start);
        kafkaStart.start();
        ElasticsearchCluster cluster = ElasticsearchCluster.start(
                "kes-bench-fixed", 3, options.work, "fl", "1g", options.esVersion, servers::node);
        kafkaStart.join();
        List<CpuQuota> quotas = ThreeNodeScenario.limitCpu(cluster, options, environment);
        try {
            Http es = cluster.http();
            Machine.describe(es, environment);
            String master =
                    es.get("/_cat/master?h=node").requireOk("master").body().trim();
            ElasticsearchNode victim = cluster.nodes().stream()
                    .filter(n -> n != cluster.node(master))
                    .findFirst()
                    .orElseThrow();
            boolean stalls = options.stalls.contains(true);
            if (stalls) {
                environment.put("stalled node", victim.nodeDir().getFileName() + " (the master is " + master + ")");
            }
            environment.put(
                    "load",
                    String.format(
                            "%s (after a prelude of %,d records the job indexes before the clock starts), %s",
                            FixedLoadReport.shape(options),
                            FixedLoadRuns.prelude(options),
                            stalls
                                    ? String.format("stall: %d ms every %d ms", STALL_MS, STALL_PERIOD_MS)
                                    : "no stall"));
            if (!options.kesBulk.isBlank()) {
                environment.put("extra kes bulk settings", options.kesBulk);
            }
            ClientCpu broker = new ClientCpu(servers::broker);
            try (OfficialRuns official = new OfficialRuns(options, null, broker, "1g")) {
                servers.closeFirst(official);
                FixedLoadRuns one = new FixedLoadRuns(options, servers, cluster, victim, broker, official);
                List<Variant> variants = variants();
                if (options.modes.contains("official")) {
                    var why = OfficialRuns.whyNot(BenchElasticsearch.esMajor(es));
                    if (why.isPresent()) {
                        failures.add("official: " + why.get());
                        variants.removeIf(v -> v.mode().equals("official"));
                    }
                }
                warmUp(one, Bench.roundOrder(variants, 1));
                for (int round = 1; round <= options.rounds; round++) {
                    Bench.step("fixed load, " + Bench.roundName(round, options.rounds) + ": the idle cluster");
                    double idle = one.idleCores(round);
                    idleCores.add(idle);
                    System.out.printf("  %.3f cores%n", idle);
                    for (Variant v : Bench.roundOrder(variants, round)) {
                        Bench.step("fixed load, " + Bench.roundName(round, options.rounds) + ": " + v.name());
                        try {
                            FixedLoadRuns.Result r = one.run(v, round);
                            System.out.println("  " + r);
                            if (!r.exactlyOnce()) {
                                failures.add(v.name() + " round " + round + ": counted " + r.counted()
                                        + ", index_total " + r.indexTotal() + " of " + r.records() + " records");
                            }
                            runs.add(r);
                        } catch (Exception e) {
                            // one mode that cannot run (e.g. an option this build does not know) leaves the others
                            // theirs
                            failures.add(v.name() + " round " + round + ": " + e.getMessage());
                            System.out.println("  !! FAILED: " + e.getMessage());
                        }
                    }
                }
            }
        } finally {
            Bench.step("Stopping the 3-node cluster and Kafka");
            for (ElasticsearchNode n : cluster.nodes()) {
                servers.stop(n);
            }
            quotas.forEach(CpuQuota::close);
            servers.stopBroker();
        }
        failures.forEach(f -> System.out.println("FAILED: " + f));
        environment.put("failures", failures.isEmpty() ? "none" : String.join("; ", failures));
        String table = new FixedLoadReport(options, runs, idleCores, environment).write();
        System.out.println();
        System.out.println(table);
        return failures.isEmpty();
    }
}
