package io.kes.bench;

import io.kes.jobs.quickstart.ProgressReporter;
import io.kes.connector.routing.ClusterMetadataClient;
import io.kes.connector.routing.IndexRouting;
import io.kes.connector.routing.IndexRoutingTable;
import io.kes.jobs.KesJob;
import io.kes.jobs.config.KesConfig;
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
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.http.HttpHost;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import java.time.Duration;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.elasticsearch.client.RestClient;

/**
 * {@code bin/kes bench}: kes against a raw bulk loader on a real local stack (or one given by URL),
 * modes alternated over rounds, medians reported as a markdown table and a PNG chart.
 */
public final class Bench {

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    static final String TOPIC_PREFIX = "kes-bench-logs";
    static final int SHARDS = 6;
    static final int DOCS_PER_BULK = 1000;
    static final long SEED = 42;

    static final List<String> SINGLE_NODE_MODES = List.of("kes", "kes-30s", "kes-mixed", "kes-request", "ceiling");
    static final List<String> MULTI_NODE_MODES = List.of("3n-single", "3n-mixed", "3n-single-pause", "3n-mixed-pause");
    static final List<String> PRIMARY_AWARE_MODES = List.of("3n-primary", "3n-primary-pause");

    /** Options of one bench run. */
    static final class Options {
        long records = 2_000_000;
        /** Documents each timed single-node run indexes: the last ones of the topic (all when >= records). */
        long docsPerRun = 500_000;
        int rounds = 3;
        int partitions = 6;
        int parallelism = 2;
        int loaderThreads = 4;
        List<String> modes = SINGLE_NODE_MODES;
        boolean skipMultiNode;
        long multiNodeRecords = 500_000;
        boolean multiNodeRecordsGiven;
        double budgetMinutes = 24;
        int multiNodeRounds = -1;
        String esUrl;
        String kafka;
        String esVersion;
        Path out = Path.of("bench/results");
        Path work = Path.of("bench/target/bench-run");
        boolean profile = true;
        boolean quick;
        boolean primaryAware = true;

        static Options parse(String[] args) {
            Options o = new Options();
            boolean recordsGiven = false;
            boolean roundsGiven = false;
            boolean mnGiven = false;
            boolean profileGiven = false;
            boolean perRunGiven = false;
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--records" -> { o.records = parseCount(args[++i]); recordsGiven = true; }
                    case "--docs-per-run" -> { o.docsPerRun = parseCount(args[++i]); perRunGiven = true; }
                    case "--rounds" -> { o.rounds = Integer.parseInt(args[++i]); roundsGiven = true; }
                    case "--partitions" -> o.partitions = Integer.parseInt(args[++i]);
                    case "--parallelism" -> o.parallelism = Integer.parseInt(args[++i]);
                    case "--loader-threads" -> o.loaderThreads = Integer.parseInt(args[++i]);
                    case "--modes" -> o.modes = List.of(args[++i].split(","));
                    case "--skip-multinode" -> o.skipMultiNode = true;
                    case "--multinode-records" -> { o.multiNodeRecords = parseCount(args[++i]); mnGiven = true; }
                    case "--multinode-rounds" -> o.multiNodeRounds = Integer.parseInt(args[++i]);
                    case "--es-url" -> o.esUrl = args[++i];
                    case "--kafka" -> o.kafka = args[++i];
                    case "--es-version" -> o.esVersion = args[++i];
                    case "--out" -> o.out = Path.of(args[++i]);
                    case "--work" -> o.work = Path.of(args[++i]);
                    case "--no-profile" -> o.profile = false;
                    case "--profile" -> profileGiven = true;
                    case "--no-primary-aware" -> o.primaryAware = false;
                    case "--budget-minutes" -> o.budgetMinutes = Double.parseDouble(args[++i]);
                    case "--quick" -> o.quick = true;
                    case "-h", "--help" -> usage(0);
                    default -> {
                        System.err.println("unknown option " + a);
                        usage(2);
                    }
                }
            }
            if (o.quick) {
                if (!recordsGiven) {
                    o.records = 50_000;
                }
                if (!roundsGiven) {
                    o.rounds = 1;
                }
                if (!mnGiven) {
                    o.multiNodeRecords = Math.min(o.records, 50_000);
                }
                o.profile = false;
            }
            if (!perRunGiven && (o.quick || o.records < o.docsPerRun)) {
                o.docsPerRun = o.records;
            }
            o.docsPerRun = Math.min(o.docsPerRun, o.records);
            if (profileGiven) {
                o.profile = true;
            }
            if (!mnGiven) {
                o.multiNodeRecords = Math.min(o.multiNodeRecords, o.records);
            }
            o.multiNodeRecordsGiven = mnGiven;
            if (o.multiNodeRounds < 0) {
                o.multiNodeRounds = o.rounds;
            }
            if ((o.esUrl == null) != (o.kafka == null)) {
                System.err.println("--es-url and --kafka go together");
                usage(2);
            }
            for (String m : o.modes) {
                if (!SINGLE_NODE_MODES.contains(m)) {
                    System.err.println("unknown mode " + m + "; modes: " + SINGLE_NODE_MODES);
                    usage(2);
                }
            }
            return o;
        }

        static long parseCount(String s) {
            s = s.replace("_", "").toLowerCase();
            if (s.endsWith("k")) {
                return Long.parseLong(s.substring(0, s.length() - 1)) * 1_000;
            }
            if (s.endsWith("m")) {
                return Long.parseLong(s.substring(0, s.length() - 1)) * 1_000_000;
            }
            return Long.parseLong(s);
        }

        String topic() {
            return TOPIC_PREFIX + "-p" + partitions + "-s" + SEED;
        }
    }

    static void usage(int code) {
        System.err.println(String.join("\n",
                "usage: kes bench [--records N] [--docs-per-run N] [--rounds R] [--partitions P] [--parallelism P] [--modes kes,kes-30s,kes-mixed,kes-request,ceiling]",
                "                 [--skip-multinode] [--multinode-records N] [--multinode-rounds R] [--loader-threads T] [--no-primary-aware]",
                "                 [--quick] [--no-profile] [--budget-minutes M] [--out DIR] [--es-url URL --kafka BOOTSTRAP] [--es-version V]",
                "defaults: 2,000,000 records in Kafka, each single-node run indexes the last 500,000 of them, 3 rounds, 6 partitions, parallelism 2, all modes, 3-node scenario with up to 500,000 docs",
                "per run (fewer when the single-node part left less than enough of the --budget-minutes 24 for it; 0 = no budget)"));
        System.exit(code);
    }

    /** One measured run of one mode. */
    /**
     * One measured run of one mode. {@code seconds}: first record read (kes) or first request (loader)
     * until every document is acknowledged and counted after a refresh. {@code checkpointMs}: median
     * end-to-end duration of the job's completed checkpoints (Flink's own statistics); {@code tailSeconds}:
     * how long the bounded job took to finish after that (its last fence and final checkpoint).
     */
    record Run(String mode, int round, long docs, long counted, double seconds, double cpuSeconds, double clientCpuSeconds,
               double p50, double p99, double shardsPerBulk, long rejections, double fenceMs, double checkpointMs,
               double tailSeconds, long bulks) {
        double docsPerSecond() {
            return docs / seconds;
        }

        double cpuPerMillion() {
            return cpuSeconds / (docs / 1e6);
        }

        double clientCpuPerMillion() {
            return clientCpuSeconds / (docs / 1e6);
        }
    }

    private final Options options;
    private final List<Run> runs = new CopyOnWriteArrayList<>();
    private final List<ElasticsearchNode> startedNodes = new CopyOnWriteArrayList<>();
    private final List<ElasticsearchNode> pausable = new CopyOnWriteArrayList<>();
    private final Map<String, String> environment = new LinkedHashMap<>();
    private KafkaBroker broker;
    private MiniCluster flinkCluster;
    private String profileSummary;
    private final List<String> failures = new CopyOnWriteArrayList<>();
    private long started;

    Bench(Options options) {
        this.options = options;
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("--chart-from")) {
            Path csv = Path.of(args[1]);
            Report.chartFromCsv(new Options(), csv, csv.resolveSibling("latest.png"));
            return;
        }
        Options options = Options.parse(args);
        Bench bench = new Bench(options);
        int code = bench.run() ? 0 : 1;
        System.exit(code);
    }

    /** Runs everything; true when every run indexed exactly the expected number of documents. */
    boolean run() throws Exception {
        started = System.nanoTime();
        Thread hook = new Thread(this::cleanUp, "kes-bench-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            singleNode();
            if (!options.skipMultiNode) {
                multiNode();
            }
        } finally {
            cleanUp();
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
        Report report = new Report(options, runs, environment, profileSummary);
        String table = report.write();
        System.out.println();
        System.out.println(table);
        System.out.printf("Bench wall time: %.1f min. Results in %s%n", minutes, options.out.toAbsolutePath());
        failures.forEach(f -> System.out.println("FAILED: " + f));
        return failures.isEmpty() && runs.stream().allMatch(r -> r.counted == r.docs);
    }

    // ---------------------------------------------------------------- single node + Kafka

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
            broker = KafkaBroker.fixed(options.work.resolve("kafka").toAbsolutePath(), Ports.free(), Ports.free());
            Thread kafkaStart = new Thread(() -> broker.start());
            kafkaStart.start();
            ElasticsearchNode node = ElasticsearchNode.builder()
                    .version(options.esVersion)
                    .nodeDir(options.work.resolve("es-single").toAbsolutePath())
                    .heap("1g")
                    .build();
            startedNodes.add(node);
            node.start();
            kafkaStart.join();
            local.add(node);
            esUrl = node.url();
            bootstrap = broker.bootstrapServers();
        }
        Http es = new Http(esUrl);
        describeMachine(es);
        EsStats stats = new EsStats(esUrl, local);

        step(String.format("Loading %,d JSON log records (~500 bytes, seed %d) into topic %s (%d partitions) once",
                options.records, SEED, options.topic(), options.partitions));
        loadTopic(bootstrap);

        sliceFrom = slice();
        sliceDocs = 0;
        for (int p = 0; p < options.partitions; p++) {
            sliceDocs += endOffset(p) - sliceFrom[p];
        }
        System.out.printf("  each timed run indexes the last %,d records of the topic (offsets %s onwards per partition)%n",
                sliceDocs, Arrays.toString(sliceFrom));
        DirectLoader.Bulks ceilingBulks = null;
        if (options.modes.contains("ceiling")) {
            IndexRouting routing = routingOf(es, esUrl, "kes-bench-routing-probe", "async");
            step(String.format("Pre-serializing %,d documents into single-shard bulks of %d for the ceiling", sliceDocs, DOCS_PER_BULK));
            ceilingBulks = DirectLoader.prepare(new SampleLogs(SEED), options.topic(), options.partitions, options.records,
                    sliceFrom, DOCS_PER_BULK, routing);
        }
        warmUp(es, esUrl, bootstrap);
        for (int round = 1; round <= options.rounds; round++) {
            // Rotate the order each round, so no mode always runs first (cold caches) or last.
            List<String> order = new ArrayList<>(options.modes);
            java.util.Collections.rotate(order, -(round - 1));
            for (String mode : order) {
                String index = "kes-bench-" + mode + "-r" + round;
                step("Round " + round + "/" + options.rounds + ": " + mode + " -> " + index);
                createIndex(es, index, mode.equals("kes-request") ? "request" : "async");
                try {
                    Run run = mode.equals("ceiling")
                            ? ceiling(es, stats, index, round, ceilingBulks, List.of(esUrl))
                            : kes(es, stats, esUrl, bootstrap, index, mode, round, false);
                    print(run);
                    runs.add(run);
                } catch (Exception e) {
                    // one failed run must not lose the others: reported, and the bench exits non-zero
                    failures.add(mode + " round " + round + ": " + e);
                    System.out.println("  !! " + mode + " round " + round + " FAILED: " + e);
                    e.printStackTrace(System.out);
                }
                es.send("DELETE", "/" + index, null);
            }
        }
        if (options.profile && options.modes.contains("kes")) {
            // Its own run, not one of the rounds: JFR's profile settings cost the job CPU (and
            // recompilation), so a profiled run would drag the kes median down.
            step("Profiling one more kes run with JFR (not part of the medians)");
            createIndex(es, "kes-bench-kes-profiled", "async");
            kes(es, stats, esUrl, bootstrap, "kes-bench-kes-profiled", "kes", 0, true);
            es.send("DELETE", "/kes-bench-kes-profiled", null);
        }
        ceilingBulks = null;
        stopFlinkCluster();
        if (broker != null) {
            step("Stopping Kafka and the single node (the 3-node scenario needs the cores)");
            broker.stop();
            broker = null;
            for (ElasticsearchNode n : local) {
                n.stop();
                startedNodes.remove(n);
            }
        }
    }

    private long[] sliceFrom;
    private long sliceDocs;

    /** Records of partition p: record i goes to partition i % P. */
    private long endOffset(int p) {
        return (options.records - p + options.partitions - 1) / options.partitions;
    }

    /** Per partition, the first offset of the slice every timed run reads: the last docsPerRun records, spread evenly. */
    private long[] slice() {
        long[] from = new long[options.partitions];
        long perPartition = options.docsPerRun / options.partitions;
        for (int p = 0; p < options.partitions; p++) {
            from[p] = options.docsPerRun >= options.records ? 0 : Math.max(0, endOffset(p) - perPartition);
        }
        return from;
    }

    /** A fresh consumer group whose committed offsets are the slice's start: the job (starting_offsets: committed) reads from there. */
    private void commitSliceStart(String bootstrap, String group) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (int p = 0; p < options.partitions; p++) {
            offsets.put(new TopicPartition(options.topic(), p), new OffsetAndMetadata(sliceFrom[p]));
        }
        try (Admin admin = KafkaBroker.adminAt(bootstrap)) {
            admin.alterConsumerGroupOffsets(group, offsets).all().get(60, TimeUnit.SECONDS);
        }
    }

    private void loadTopic(String bootstrap) throws Exception {
        String topic = options.topic();
        KafkaBroker.createTopicAt(bootstrap, topic, options.partitions, Map.of("compression.type", "producer"));
        long existing = endOffsets(bootstrap, topic);
        if (existing == options.records) {
            System.out.printf("  the topic already holds %,d records%n", existing);
            return;
        }
        if (existing > 0) {
            throw new IllegalStateException("topic " + topic + " holds " + existing + " records, not " + options.records
                    + ": delete it or use other --records");
        }
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
        SampleLogs logs = new SampleLogs(SEED);
        long t0 = System.nanoTime();
        AtomicReference<Exception> failure = new AtomicReference<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (long i = 0; i < options.records && failure.get() == null; i++) {
                producer.send(new ProducerRecord<>(topic, (int) (i % options.partitions), null, logs.record(i)), (md, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    }
                });
            }
            producer.flush();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("producing to " + topic + " failed", failure.get());
        }
        long total = endOffsets(bootstrap, topic);
        System.out.printf("  produced %,d records in %.1f s%n", total, (System.nanoTime() - t0) / 1e9);
        if (total != options.records) {
            throw new IllegalStateException("topic " + topic + " holds " + total + " records, expected " + options.records);
        }
    }

    /**
     * Untimed: JIT-compiles Elasticsearch's indexing path with a short direct load (so the first
     * mode of round 1 is not the only one to run on a cold node), makes Kafka create its offsets
     * topic (the first checkpoint's offset commit would otherwise wait for it), and runs each kes
     * mode once over the slice, so that the job's own hot paths (Kafka client, decode, routing,
     * serializer, writer) are compiled too: a streaming job runs warm, and without this round 1
     * measured a cold kes against a warm ceiling.
     */
    private void warmUp(Http es, String esUrl, String bootstrap) throws Exception {
        long docs = Math.min(options.records, 200_000);
        step(String.format("Warm-up (untimed): %,d documents by the direct loader, Kafka offsets topic, each kes mode once", docs));
        IndexRouting routing = routingOf(es, esUrl, "kes-bench-warmup", "async");
        DirectLoader.Bulks bulks = DirectLoader.prepare(new SampleLogs(SEED), options.topic(), options.partitions, docs, DOCS_PER_BULK, routing);
        createIndex(es, "kes-bench-warmup", "async");
        DirectLoader.load(bulks, "kes-bench-warmup", List.of(esUrl), options.loaderThreads);
        es.send("DELETE", "/kes-bench-warmup", null);
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("group.id", "kes-bench-warmup");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition(options.topic(), 0);
            consumer.assign(List.of(tp));
            consumer.commitSync(Map.of(tp, new OffsetAndMetadata(0)), Duration.ofSeconds(60));
        }
        for (String mode : options.modes) {
            if (mode.startsWith("kes") && !mode.equals("kes-30s")) {
                // each kes code path once: shuffle or not, fence or not (kes-30s is kes's path)
                System.out.printf("  untimed %s run over the slice (%,d documents)%n", mode, sliceDocs);
                String index = "kes-bench-warmup-" + mode;
                createIndex(es, index, mode.equals("kes-request") ? "request" : "async");
                kes(es, new EsStats(esUrl, List.of()), esUrl, bootstrap, index, mode, 0, false);
                es.send("DELETE", "/" + index, null);
            }
        }
    }

    private long endOffsets(String bootstrap, String topic) throws Exception {
        try (Admin admin = KafkaBroker.adminAt(bootstrap)) {
            Map<TopicPartition, OffsetSpec> request = new HashMap<>();
            for (int p = 0; p < options.partitions; p++) {
                request.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            return admin.listOffsets(request).all().get(30, TimeUnit.SECONDS).values().stream().mapToLong(o -> o.offset()).sum();
        }
    }

    private Run kes(Http es, EsStats stats, String esUrl, String bootstrap, String index, String mode, int round,
                    boolean profile) throws Exception {
        String group = "kes-bench-" + index + "-" + System.currentTimeMillis();
        commitSliceStart(bootstrap, group);
        List<String> yaml = new ArrayList<>(List.of(
                "elasticsearch:",
                "  hosts: [" + esUrl + "]"));
        if (mode.equals("kes-request")) {
            yaml.add("  durability: request");
        }
        yaml.addAll(List.of(
                "kafka:",
                "  bootstrap_servers: " + bootstrap,
                "  group_id: " + group,
                "  starting_offsets: committed",
                "routes:",
                "  - topics: [" + options.topic() + "]",
                "    index: " + index,
                "    id: kafka",
                "bulk:",
                "  shard_grouping: " + !mode.equals("kes-mixed"),
                "job:",
                "  name: kes-bench-" + mode,
                "  parallelism: " + options.parallelism,
                "  checkpoint_interval: " + (mode.equals("kes-30s") ? "30s" : "10s"),
                "  bounded: true",
                ""));
        KesConfig config = KesConfig.parse(String.join("\n", yaml), System.getenv());
        StreamExecutionEnvironment env = flinkEnvironment();
        ProgressReporter.reset();
        Profiler profiler = null;
        EsStats.Snapshot before = stats.snapshot();
        JobClient job = KesJob.start(env, config);
        var result = job.getJobExecutionResult();
        long firstRead = 0;
        long clientCpuAtFirstRead = 0;
        long lastPrint = System.nanoTime();
        long lastSample = 0;
        StringBuilder timeline = new StringBuilder("ms,read,acknowledged\n");
        // The clock stops when Elasticsearch has acknowledged every document (then refresh + count).
        // What a bounded job does after that (the last drain and fence, the final checkpoint) has no
        // counterpart in a stream that never ends; it is reported apart as the job's tail.
        while (ProgressReporter.sum("numRecordsSend", "bulk writer") < sliceDocs) {
            if (result.isDone()) {
                result.get(); // rethrows a failure
                throw new IllegalStateException("the job finished with " + ProgressReporter.sum("numRecordsSend", "bulk writer")
                        + " of " + sliceDocs + " documents acknowledged");
            }
            long now = System.nanoTime();
            if (firstRead == 0 && ProgressReporter.sum("numRecordsOut", "Source") > 0) {
                firstRead = now;
                clientCpuAtFirstRead = clientCpuMillis();
                if (profile) {
                    profiler = Profiler.start(); // from the first record: the steady state, not the job's start-up
                }
            }
            if (firstRead != 0 && now - lastSample >= 100_000_000) {
                lastSample = now;
                if (profiler != null) {
                    profiler.sampleThreads();
                }
                timeline.append(String.format("%d,%d,%d%n", (now - firstRead) / 1_000_000,
                        ProgressReporter.sum("numRecordsOut", "Source"), ProgressReporter.sum("numRecordsSend", "bulk writer")));
            }
            if (now - lastPrint > 10e9) {
                lastPrint = now;
                System.out.printf("  read %,d, indexed %,d%n", ProgressReporter.sum("numRecordsOut", "Source"),
                        ProgressReporter.sum("numRecordsSend", "bulk writer"));
            }
            Thread.sleep(firstRead == 0 ? 5 : 10);
        }
        long clientCpu = clientCpuMillis() - clientCpuAtFirstRead;
        long counted = es.refreshAndCount(index);
        long done = System.nanoTime();
        EsStats.Snapshot delta = stats.snapshot().minus(before);
        if (profiler != null) {
            profileSummary = profiler.stopAndSummarise(options.out.resolve("profile.md"), options.work.resolve("kes-profile.jfr"));
        }
        result.get(); // the job's tail: the last fence, the final checkpoint
        double tailSeconds = (System.nanoTime() - done) / 1e9;
        timeline.append(String.format("%d,visible%n%d,job finished%n", (done - firstRead) / 1_000_000,
                (System.nanoTime() - firstRead) / 1_000_000));
        Files.writeString(options.work.resolve("timeline-" + index + ".csv"), timeline);
        long[] latency = ProgressReporter.values("bulkLatencyMs");
        long[] fence = ProgressReporter.values("fenceMs");
        long shardOps = stats.shardBulkOperations(index);
        return new Run(mode, round, sliceDocs, counted, (done - firstRead) / 1e9, delta.cpuMillis() / 1000.0, clientCpu / 1000.0,
                percentile(latency, 50), percentile(latency, 99), ratio(shardOps, delta.bulkHttpRequests()),
                delta.writeRejected(), fence.length == 0 ? Double.NaN : percentile(fence, 50),
                checkpointMillisP50(job), tailSeconds, ProgressReporter.sum("bulksSent", "bulk writer"));
    }

    /** Median end-to-end duration of the job's completed checkpoints, from Flink's REST API ({@code /jobs/<id>/checkpoints}). */
    private double checkpointMillisP50(JobClient job) throws Exception {
        URI rest = flinkCluster.getRestAddress().get(60, TimeUnit.SECONDS);
        Http flink = new Http("http://" + rest.getHost() + ":" + rest.getPort());
        var history = JSON.readTree(flink.get("/jobs/" + job.getJobID() + "/checkpoints").requireOk("checkpoint statistics").body())
                .path("history");
        List<Long> durations = new ArrayList<>();
        history.forEach(c -> {
            if ("COMPLETED".equals(c.path("status").asText())) {
                durations.add(c.path("end_to_end_duration").asLong());
            }
        });
        return percentile(durations.stream().mapToLong(Long::longValue).toArray(), 50);
    }

    /**
     * An environment that submits to the one Flink cluster every kes run shares, started on first
     * use. A real job runs on a long-lived cluster; a fresh MiniCluster per run would load its RPC
     * system again (about 1,900 classes in their own class loader) and JIT-compile it on the
     * measured clock: that doubled the bench JVM's CPU per document in a later round.
     */
    private StreamExecutionEnvironment flinkEnvironment() throws Exception {
        if (flinkCluster == null) {
            Configuration flink = new Configuration();
            flink.setString("metrics.reporter.kesbench.factory.class", ProgressReporter.Factory.class.getName());
            flink.setString("metrics.reporter.kesbench.interval", "60 s");
            flink.setString("taskmanager.memory.network.max", "256mb");
            flink.set(RestOptions.BIND_PORT, "0");
            MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder().setConfiguration(flink)
                    .setNumTaskManagers(1).setNumSlotsPerTaskManager(options.parallelism).build());
            cluster.start();
            flinkCluster = cluster;
        }
        URI rest = flinkCluster.getRestAddress().get(60, TimeUnit.SECONDS);
        return StreamExecutionEnvironment.createRemoteEnvironment(rest.getHost(), rest.getPort(), new Configuration());
    }

    private Run ceiling(Http es, EsStats stats, String index, int round, DirectLoader.Bulks bulks, List<String> nodeUrls)
            throws Exception {
        return loaderRun("ceiling", es, stats, index, round, bulks, nodeUrls, null);
    }

    private Run loaderRun(String mode, Http es, EsStats stats, String index, int round, DirectLoader.Bulks bulks,
                          List<String> nodeUrls, String[] primaryUrlByShard) throws Exception {
        EsStats.Snapshot before = stats.snapshot();
        long clientCpuBefore = clientCpuMillis();
        long t0 = System.nanoTime();
        DirectLoader.Result r = DirectLoader.load(bulks, index, nodeUrls, primaryUrlByShard, options.loaderThreads);
        long clientCpu = clientCpuMillis() - clientCpuBefore;
        long counted = es.refreshAndCount(index);
        long done = System.nanoTime();
        EsStats.Snapshot delta = stats.snapshot().minus(before);
        long shardOps = stats.shardBulkOperations(index);
        return new Run(mode, round, bulks.docs(), counted, (done - t0) / 1e9, delta.cpuMillis() / 1000.0, clientCpu / 1000.0,
                percentile(r.latencyMillis(), 50), percentile(r.latencyMillis(), 99), ratio(shardOps, delta.bulkHttpRequests()),
                delta.writeRejected(), Double.NaN, Double.NaN, Double.NaN, bulks.bodies().size());
    }

    /**
     * CPU of everything that feeds Elasticsearch: this JVM (the kes job in its MiniCluster, or the
     * direct loader) plus the Kafka broker the job reads from. On a machine where the clients and
     * the node share the cores, every client CPU second is taken from Elasticsearch.
     */
    private long clientCpuMillis() {
        long millis = EsStats.cpuMillis(ProcessHandle.current().pid());
        if (broker != null) {
            millis += broker.process().map(p -> EsStats.treeCpuMillis(p.pid())).orElse(0L);
        }
        return millis;
    }

    // ---------------------------------------------------------------- three nodes

    private void multiNode() throws Exception {
        List<String> urls = new ArrayList<>();
        List<ElasticsearchNode> nodes = new ArrayList<>();
        if (options.esUrl != null) {
            step("3-node scenario skipped: it needs nodes started by the bench (not --es-url)");
            return;
        }
        step("Starting a 3-node Elasticsearch cluster (1 GB heaps) on this machine");
        int[] http = new int[3];
        int[] transport = new int[3];
        StringBuilder seeds = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            http[i] = Ports.free();
            transport[i] = Ports.free();
            seeds.append(i == 0 ? "" : ",").append("127.0.0.1:").append(transport[i]);
        }
        for (int i = 0; i < 3; i++) {
            ElasticsearchNode node = ElasticsearchNode.builder()
                    .version(options.esVersion)
                    .nodeDir(options.work.resolve("mn" + (i + 1)).toAbsolutePath())
                    .ports(http[i], transport[i])
                    .heap("1g")
                    .setting("cluster.name", "kes-bench-3n")
                    .setting("discovery.type", "multi-node")
                    .setting("discovery.seed_hosts", seeds.toString())
                    .setting("cluster.initial_master_nodes", "mn1,mn2,mn3")
                    .build();
            nodes.add(node);
            startedNodes.add(node);
            urls.add(node.url());
        }
        // Each start() waits for green, which needs a formed cluster: start the three together.
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<?>> starts = new ArrayList<>();
            for (ElasticsearchNode n : nodes) {
                starts.add(pool.submit(n::start));
            }
            for (Future<?> f : starts) {
                f.get(6, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdown();
        }
        Http es = new Http(urls.get(0));
        es.get("/_cluster/health?wait_for_nodes=3&wait_for_status=green&timeout=60s").requireOk("3-node health");
        EsStats stats = new EsStats(urls.get(0), nodes);
        IndexRouting routing = routingOf(es, urls.get(0), "kes-bench-3n-routing-probe", "async");
        step(String.format("Pre-serializing %,d documents as single-shard and as mixed bulks", options.multiNodeRecords));
        step("Warm-up (untimed): three loads into the 3-node cluster");
        DirectLoader.Bulks warm = DirectLoader.prepare(new SampleLogs(SEED), options.topic(), options.partitions,
                Math.min(options.multiNodeRecords, 100_000), DOCS_PER_BULK, routing);
        // Fresh nodes are cold: one load left the first 3-node round at a third of the later rounds'
        // speed. The last load's rate, warm, sizes the runs.
        DirectLoader.Result warmed = null;
        for (int i = 0; i < 3; i++) {
            createIndex(es, "kes-bench-3n-warmup", "async");
            warmed = DirectLoader.load(warm, "kes-bench-3n-warmup", urls, options.loaderThreads);
            es.send("DELETE", "/kes-bench-3n-warmup", null);
        }
        fitMultiNodeIntoBudget(warm.docs() / warmed.seconds());
        Map<Boolean, DirectLoader.Bulks> bulks = Map.of(
                true, DirectLoader.prepare(new SampleLogs(SEED), options.topic(), options.partitions, options.multiNodeRecords, DOCS_PER_BULK, routing),
                false, DirectLoader.prepare(new SampleLogs(SEED), options.topic(), options.partitions, options.multiNodeRecords, DOCS_PER_BULK, null));
        // The paused node: one that is not the elected master, so the pauses hit writes, not the cluster's coordination.
        String master = es.get("/_cat/master?h=node").requireOk("master").body().trim();
        ElasticsearchNode victim = nodes.stream().filter(n -> !n.nodeDir().getFileName().toString().equals(master))
                .findFirst().orElse(nodes.get(2));
        for (int round = 1; round <= options.multiNodeRounds; round++) {
            List<String> order = new ArrayList<>(MULTI_NODE_MODES);
            if (options.primaryAware) {
                order.addAll(PRIMARY_AWARE_MODES);
            }
            java.util.Collections.rotate(order, -(round - 1));
            for (String mode : order) {
                String index = "kes-bench-" + mode + "-r" + round;
                boolean pauses = mode.endsWith("-pause");
                step("3 nodes, round " + round + "/" + options.multiNodeRounds + ": " + mode + " -> " + index
                        + (pauses ? " (SIGSTOP " + victim.nodeDir().getFileName() + " 200 ms every 2 s)" : ""));
                createIndex(es, index, "async");
                es.get("/_cluster/health/" + index + "?wait_for_status=green&timeout=60s").requireOk("health of " + index);
                PauseInjector injector = pauses ? new PauseInjector(victim) : null;
                Run run;
                try {
                    if (injector != null) {
                        injector.start();
                    }
                    run = loaderRun(mode, es, stats, index, round, bulks.get(!mode.startsWith("3n-mixed")), urls,
                            mode.startsWith("3n-primary") ? primaries(es, index, nodes) : null);
                } finally {
                    if (injector != null) {
                        injector.stop();
                    }
                }
                print(run);
                runs.add(run);
                es.send("DELETE", "/" + index, null).requireOk("deleting " + index);
            }
        }
        step("Stopping the 3-node cluster");
        for (ElasticsearchNode n : nodes) {
            n.stop();
            startedNodes.remove(n);
        }
    }

    /** SIGSTOP of one node's process tree for 200 ms every 2 s; always resumed. */
    final class PauseInjector {
        private final ElasticsearchNode node;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread;
        int pauses;

        PauseInjector(ElasticsearchNode node) {
            this.node = node;
            this.thread = new Thread(this::loop, "kes-bench-pause-injector");
            this.thread.setDaemon(true);
        }

        void start() {
            pausable.add(node);
            thread.start();
        }

        private void loop() {
            // Never interrupted: an interrupt while the kill -CONT runs would leave the node frozen.
            while (running.get()) {
                try {
                    for (int i = 0; i < 18 && running.get(); i++) {
                        Thread.sleep(100);
                    }
                    if (!running.get()) {
                        break;
                    }
                    node.pause();
                    try {
                        Thread.sleep(200);
                    } finally {
                        node.resume();
                    }
                    pauses++;
                } catch (InterruptedException e) {
                    break;
                } catch (RuntimeException e) {
                    System.err.println("  pause injector: " + e);
                }
            }
        }

        void stop() throws InterruptedException {
            running.set(false);
            thread.join(10_000);
            node.resume();
            pausable.remove(node);
            System.out.println("  pause injector: " + pauses + " pauses of 200 ms");
        }
    }

    /**
     * The default run must end within the budget: size the 3-node runs from the time left and the
     * rate the (untimed) warm-up load reached on the 3 nodes.
     */
    private void fitMultiNodeIntoBudget(double warmUpDocsPerSecond) {
        if (options.budgetMinutes <= 0 || options.multiNodeRecordsGiven) {
            return;
        }
        double leftSeconds = options.budgetMinutes * 60 - (System.nanoTime() - started) / 1e9;
        int modes = MULTI_NODE_MODES.size() + (options.primaryAware ? PRIMARY_AWARE_MODES.size() : 0);
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

    // ---------------------------------------------------------------- helpers

    /** The URL of the node holding each shard's primary, from {@code _cat/shards}. */
    private static String[] primaries(Http es, String index, List<ElasticsearchNode> nodes) throws IOException {
        String[] urls = new String[SHARDS];
        for (String line : es.get("/_cat/shards/" + index + "?h=shard,prirep,node").requireOk("_cat/shards").body().split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 3 && f[1].equals("p")) {
                for (ElasticsearchNode n : nodes) {
                    if (n.nodeDir().getFileName().toString().equals(f[2])) {
                        urls[Integer.parseInt(f[0])] = n.url();
                    }
                }
            }
        }
        for (int s = 0; s < SHARDS; s++) {
            if (urls[s] == null) {
                throw new IllegalStateException("no primary found for shard " + s + " of " + index);
            }
        }
        return urls;
    }

    private static void createIndex(Http es, String index, String durability) throws IOException {
        es.send("DELETE", "/" + index, null);
        es.send("PUT", "/" + index, "{\"settings\":{\"number_of_shards\":" + SHARDS + ",\"number_of_replicas\":0,"
                + "\"refresh_interval\":\"-1\",\"translog.durability\":\"" + durability + "\"}}").requireOk("creating " + index);
        es.get("/_cluster/health/" + index + "?wait_for_status=green&timeout=60s").requireOk("health of " + index);
    }

    /** How a fresh 6-shard index routes on this cluster, calibrated by the connector's own routing table. */
    private static IndexRouting routingOf(Http es, String url, String probeIndex, String durability) throws IOException {
        createIndex(es, probeIndex, durability);
        java.net.URI u = java.net.URI.create(url);
        try (RestClient client = RestClient.builder(new HttpHost(u.getHost(), u.getPort(), u.getScheme())).build()) {
            IndexRoutingTable table = new IndexRoutingTable(new ClusterMetadataClient(client), System::currentTimeMillis);
            return table.routingFor(probeIndex).orElseThrow(() -> new IllegalStateException("routing of " + probeIndex + " is not predictable"));
        } finally {
            es.send("DELETE", "/" + probeIndex, null);
        }
    }

    private void describeMachine(Http es) throws IOException {
        environment.put("machine", Runtime.getRuntime().availableProcessors() + " cores (nproc), "
                + memTotal() + " RAM, " + System.getProperty("os.name") + " " + System.getProperty("os.version"));
        environment.put("bench JVM", System.getProperty("java.vm.name") + " " + System.getProperty("java.version")
                + ", -Xmx" + (Runtime.getRuntime().maxMemory() >> 20) + "m");
        String root = es.get("/_nodes/_local/jvm?filter_path=nodes.*.version,nodes.*.jvm.version").body();
        java.util.regex.Matcher v = java.util.regex.Pattern.compile("\"version\":\"([^\"]+)\",\"jvm\":\\{\"version\":\"([^\"]+)\"").matcher(root);
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

    private static double ratio(long a, long b) {
        return b == 0 ? Double.NaN : (double) a / b;
    }

    private static void print(Run r) {
        System.out.printf("  %s round %d: %,d docs (%,d counted) in %.1f s = %,.0f docs/s | ES CPU %.1f s = %.1f s/M docs | "
                        + "client CPU %.1f s/M docs | bulk p50 %.0f ms p99 %.0f ms | shards/bulk %.2f | rejections %d | checkpoint p50 %s ms%n",
                r.mode(), r.round(), r.docs(), r.counted(), r.seconds(), r.docsPerSecond(), r.cpuSeconds(), r.cpuPerMillion(),
                r.clientCpuPerMillion(),
                r.p50(), r.p99(), r.shardsPerBulk(), r.rejections(), Double.isNaN(r.checkpointMs()) ? "-" : String.format("%.0f", r.checkpointMs()));
        if (r.counted() != r.docs()) {
            System.out.println("  !! COUNT MISMATCH: expected " + r.docs() + ", Elasticsearch holds " + r.counted());
        }
    }

    private static void step(String title) {
        System.out.println();
        System.out.println("==> [" + java.time.LocalTime.now().withNano(0) + "] " + title);
    }

    private synchronized void stopFlinkCluster() {
        if (flinkCluster != null) {
            stopQuietly("the Flink cluster", flinkCluster);
            flinkCluster = null;
        }
    }

    /** Clean-up never throws: one server that will not stop must not keep the others running. */
    private static void stopQuietly(String what, AutoCloseable server) {
        try {
            server.close();
        } catch (Exception e) {
            System.err.println("stopping " + what + ": " + e);
        }
    }

    /** Resumes any paused node and stops every server this bench started; also runs as a shutdown hook. */
    private synchronized void cleanUp() {
        stopFlinkCluster();
        for (ElasticsearchNode n : pausable) {
            try {
                n.resume();
            } catch (RuntimeException ignored) {
                // best effort
            }
        }
        pausable.clear();
        for (ElasticsearchNode n : startedNodes) {
            stopQuietly(n.toString(), n::stop);
        }
        startedNodes.clear();
        if (broker != null) {
            stopQuietly("Kafka", broker::stop);
            broker = null;
        }
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
