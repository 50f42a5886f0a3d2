package io.kes.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.jobs.KesJob;
import io.kes.jobs.cli.ProgressReporter;
import io.kes.jobs.config.KesConfig;
import io.kes.stack.Http;
import java.net.URI;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Measured runs of the kes job itself ({@link KesJob#start}, the code of {@code bin/kes run}) on
 * one Flink MiniCluster in this JVM that every run shares, as a long-lived cluster would: a fresh
 * MiniCluster per run would load its RPC system again (about 1,900 classes in their own class
 * loader) and JIT-compile it on the measured clock.
 */
final class KesRuns {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SOURCE = "Source";
    private static final String WRITER = "bulk writer";

    private final BenchOptions options;
    private final BenchTopic topic;
    private final Http es;
    private final List<String> esUrls;
    private final String bootstrap;
    private final ClientCpu clientCpu;
    private final BenchServers servers;
    private MiniCluster cluster;
    private String profileSummary;

    KesRuns(
            BenchOptions options,
            BenchTopic topic,
            Http es,
            List<String> esUrls,
            String bootstrap,
            ClientCpu clientCpu,
            BenchServers servers) {
        this.options = options;
        this.topic = topic;
        this.es = es;
        this.esUrls = esUrls;
        this.bootstrap = bootstrap;
        this.clientCpu = clientCpu;
        this.servers = servers;
    }

    /** The summary of the profiled run, or null. */
    String profileSummary() {
        return profileSummary;
    }

    /**
     * One run of {@code mode} over the topic's slice into {@code index}. The clock starts when the
     * source's {@code numRecordsOut} first moves (polled every 5 ms: cluster start-up and job
     * submission are not counted) and stops when the writers' {@code numRecordsSend} (documents
     * Elasticsearch acknowledged) reaches the slice, followed by a refresh and count. What a bounded
     * job does after that (its last drain and fence, the final checkpoint) has no counterpart in a
     * stream that never ends; it is reported as the run's tail.
     */
    Run run(EsStats stats, String index, String mode, int round, boolean profile) throws Exception {
        return run(stats, index, mode, round, profile, topic.sliceFrom(), 1).get(0);
    }

    /** Per-bulk latencies (ms) of the last run's writers, request sent to response parsed. */
    long[] lastLatencies() {
        return ProgressReporter.values("bulkLatencyMs");
    }

    /**
     * One job from {@code from} (per partition) to the topic's end, measured in {@code windows}
     * consecutive windows of equal documents: one Run each, numbered from 1 (the long-running mode:
     * the first window carries the job's start-up JIT, the later ones are the steady state). With
     * one window, the clock stops after the refresh and count; with more, each window ends when the
     * writers' acknowledged documents reach it, and only the last one's count is checked.
     */
    List<Run> run(EsStats stats, String index, String mode, int round, boolean profile, long[] from, int windows)
            throws Exception {
        long docs = topic.docsFrom(from);
        String group = "kes-bench-" + index + "-" + System.currentTimeMillis();
        topic.commitStart(group, from);
        KesConfig config = KesConfig.parse(yaml(baseMode(mode), index, group), System.getenv());
        StreamExecutionEnvironment env = environment();
        ProgressReporter.reset();
        EsStats.Snapshot before = stats.snapshot();
        JobClient job = KesJob.start(env, config);
        CompletableFuture<JobExecutionResult> result = job.getJobExecutionResult();
        Profiler profiler = null;
        long firstRead = 0;
        long clientAtFirstRead = 0;
        long brokerAtFirstRead = 0;
        long jitAtFirstRead = 0;
        long lastPrint = System.nanoTime();
        long lastSample = 0;
        long lastThreadSample = 0;
        List<Window> ends = new ArrayList<>();
        StringBuilder timeline = new StringBuilder("ms,read,acknowledged\n");
        for (long acked; (acked = ProgressReporter.sum("numRecordsSend", WRITER)) < docs; ) {
            if (result.isDone()) {
                result.get(); // rethrows a failure
                throw new IllegalStateException("the job finished with "
                        + ProgressReporter.sum("numRecordsSend", WRITER) + " of " + docs + " documents acknowledged");
            }
            long now = System.nanoTime();
            if (firstRead == 0 && ProgressReporter.sum("numRecordsOut", SOURCE) > 0) {
                firstRead = now;
                clientAtFirstRead = clientCpu.millis();
                jitAtFirstRead = ClientCpu.jitMillis();
                if (windows > 1) {
                    ends.add(new Window(0, now, clientAtFirstRead, jitAtFirstRead, stats.snapshot()));
                }
                if (profile) {
                    brokerAtFirstRead = clientCpu.brokerMillis();
                    profiler = Profiler.start(); // from the first record: the steady state, not the job's start-up
                }
            }
            if (windows > 1 && firstRead != 0 && ends.size() < windows && acked >= docs * ends.size() / windows) {
                ends.add(new Window(acked, now, clientCpu.millis(), ClientCpu.jitMillis(), stats.snapshot()));
                System.out.printf(
                        "  window %d/%d ended at %,d documents acknowledged%n", ends.size() - 1, windows, acked);
            }
            if (profiler != null && now - lastThreadSample >= 1_000_000_000) {
                // once a second: reading /proc for each of the JVM's ~100 threads every 100 ms took a
                // quarter of the profiled JVM's CPU; a thread that ends loses at most a second of it
                lastThreadSample = now;
                profiler.sampleThreads();
            }
            if (firstRead != 0 && now - lastSample >= 100_000_000) {
                lastSample = now;
                timeline.append(String.format(
                        "%d,%d,%d%n",
                        (now - firstRead) / 1_000_000, ProgressReporter.sum("numRecordsOut", SOURCE), acked));
            }
            if (now - lastPrint > 10e9) {
                lastPrint = now;
                System.out.printf("  read %,d, indexed %,d%n", ProgressReporter.sum("numRecordsOut", SOURCE), acked);
            }
            Thread.sleep(firstRead == 0 ? 5 : 10);
        }
        long clientMillis = clientCpu.millis();
        long brokerMillis = clientCpu.brokerMillis();
        long jitMillis = ClientCpu.jitMillis();
        long counted = es.refreshAndCount(index);
        long done = System.nanoTime();
        EsStats.Snapshot after = stats.snapshot();
        EsStats.Snapshot delta = after.minus(before);
        if (profiler != null) {
            double perMillion = docs / 1e6;
            profileSummary = profiler.stopAndSummarise(
                    options.out,
                    options.work,
                    String.format(
                            "Client CPU of this run from the first record read: %.1f s / M docs, of which the Kafka broker (its own process,"
                                    + " serving the fetches and offset commits) %.1f and this JVM (the job in its MiniCluster) %.1f.%n%n",
                            (clientMillis - clientAtFirstRead) / 1000.0 / perMillion,
                            (brokerMillis - brokerAtFirstRead) / 1000.0 / perMillion,
                            (clientMillis - clientAtFirstRead - brokerMillis + brokerAtFirstRead)
                                    / 1000.0
                                    / perMillion));
        }
        result.get(); // the job's tail: the last fence, the final checkpoint
        double tailSeconds = (System.nanoTime() - done) / 1e9;
        timeline.append(String.format(
                "%d,visible%n%d,job finished%n",
                (done - firstRead) / 1_000_000, (System.nanoTime() - firstRead) / 1_000_000));
        Files.writeString(options.work.resolve("timeline-" + index + ".csv"), timeline);
        long[] latency = ProgressReporter.values("bulkLatencyMs");
        long[] fence = ProgressReporter.values("fenceMs");
        long shardOps = stats.shardBulkOperations(index);
        double shardsPerBulk = Stats.ratio(shardOps, delta.bulkHttpRequests());
        double checkpointMs = checkpointMillisP50(job);
        double fenceMs = fence.length == 0 ? Double.NaN : Stats.percentile(fence, 50);
        long bulks = ProgressReporter.sum("bulksSent", WRITER);
        if (windows == 1) {
            return List.of(new Run(
                    mode,
                    round,
                    docs,
                    counted,
                    (done - firstRead) / 1e9,
                    delta.cpuMillis() / 1000.0,
                    (clientMillis - clientAtFirstRead) / 1000.0,
                    (jitMillis - jitAtFirstRead) / 1000.0,
                    Stats.percentile(latency, 50),
                    Stats.percentile(latency, 99),
                    shardsPerBulk,
                    delta.writeRejected(),
                    fenceMs,
                    checkpointMs,
                    tailSeconds,
                    bulks));
        }
        // the last window ends with the run: every document acknowledged (the count is checked over the whole run)
        ends.add(new Window(docs, done, clientMillis, jitMillis, after));
        List<Run> runs = new ArrayList<>();
        for (int w = 1; w < ends.size(); w++) {
            Window a = ends.get(w - 1);
            Window b = ends.get(w);
            EsStats.Snapshot es = b.es().minus(a.es());
            long windowDocs = b.acked() - a.acked();
            runs.add(new Run(
                    mode,
                    w,
                    windowDocs,
                    w == ends.size() - 1 && counted != docs ? counted - a.acked() : windowDocs,
                    (b.nanos() - a.nanos()) / 1e9,
                    es.cpuMillis() / 1000.0,
                    (b.clientMillis() - a.clientMillis()) / 1000.0,
                    (b.jitMillis() - a.jitMillis()) / 1000.0,
                    Double.NaN,
                    Double.NaN,
                    shardsPerBulk,
                    es.writeRejected(),
                    fenceMs,
                    checkpointMs,
                    w == ends.size() - 1 ? tailSeconds : Double.NaN,
                    0));
        }
        return runs;
    }

    /** Where one window of a long run ended: documents acknowledged, time, client CPU, JIT CPU, Elasticsearch counters. */
    private record Window(long acked, long nanos, long clientMillis, long jitMillis, EsStats.Snapshot es) {}

    /** {@code 3n-kes-mixed-pause} -> {@code kes-mixed}: the job's settings, wherever it runs. */
    static String baseMode(String mode) {
        return mode.replaceFirst("^3n-", "").replaceFirst("-pause$", "").replaceFirst("-long$", "");
    }

    /** The job's mapping: the slice of the topic into {@code index}, bounded, the mode's settings on top of kes's defaults. */
    private String yaml(String mode, String index, String group) {
        List<String> yaml = new ArrayList<>(List.of("elasticsearch:", "  hosts: [" + String.join(", ", esUrls) + "]"));
        if (mode.equals("kes-request")) {
            yaml.add("  durability: request");
        }
        yaml.addAll(List.of(
                "kafka:",
                "  bootstrap_servers: " + bootstrap,
                "  group_id: " + group,
                "  starting_offsets: committed",
                "routes:",
                "  - topics: [" + topic.name() + "]",
                "    index: " + index,
                "    id: kafka",
                "bulk:",
                "  shard_grouping: " + !mode.equals("kes-mixed"),
                "  adaptive_concurrency: " + mode.equals("kes-aimd"),
                "job:",
                "  name: kes-bench-" + mode,
                "  parallelism: " + options.parallelism,
                "  checkpoint_interval: " + (mode.equals("kes-30s") ? "30s" : "10s"),
                "  bounded: true",
                ""));
        return String.join("\n", yaml);
    }

    /** Median end-to-end duration of the job's completed checkpoints, from Flink's REST API ({@code /jobs/<id>/checkpoints}). */
    private double checkpointMillisP50(JobClient job) throws Exception {
        JsonNode history = JSON.readTree(flinkRest()
                        .get("/jobs/" + job.getJobID() + "/checkpoints")
                        .requireOk("checkpoint statistics")
                        .body())
                .path("history");
        List<Long> durations = new ArrayList<>();
        history.forEach(c -> {
            if ("COMPLETED".equals(c.path("status").asText())) {
                durations.add(c.path("end_to_end_duration").asLong());
            }
        });
        return Stats.percentile(durations.stream().mapToLong(Long::longValue).toArray(), 50);
    }

    private Http flinkRest() throws Exception {
        URI rest = cluster.getRestAddress().get(60, TimeUnit.SECONDS);
        return new Http("http://" + rest.getHost() + ":" + rest.getPort());
    }

    /** An environment that submits to the shared cluster, started on first use. */
    private StreamExecutionEnvironment environment() throws Exception {
        if (cluster == null) {
            Configuration flink = new Configuration();
            flink.setString("metrics.reporter.kesbench.factory.class", ProgressReporter.Factory.class.getName());
            flink.setString("metrics.reporter.kesbench.interval", "60 s");
            flink.setString("taskmanager.memory.network.max", "256mb");
            flink.set(RestOptions.BIND_PORT, "0");
            cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                    .setConfiguration(flink)
                    .setNumTaskManagers(1)
                    .setNumSlotsPerTaskManager(options.parallelism)
                    .build());
            cluster.start();
            servers.closeFirst(this::stop);
        }
        URI rest = cluster.getRestAddress().get(60, TimeUnit.SECONDS);
        return StreamExecutionEnvironment.createRemoteEnvironment(rest.getHost(), rest.getPort(), new Configuration());
    }

    /** Stops the shared cluster (the 3-node part needs the cores). */
    synchronized void stop() throws Exception {
        if (cluster != null) {
            MiniCluster c = cluster;
            cluster = null;
            c.close();
        }
    }

    @Override
    public String toString() {
        return "the Flink cluster";
    }
}
