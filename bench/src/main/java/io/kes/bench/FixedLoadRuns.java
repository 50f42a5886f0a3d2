package io.kes.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.connector.KafkaCoordinateId;
import io.kes.stack.ElasticsearchCluster;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.Http;
import io.kes.stack.KafkaBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;

/**
 * One run of the fixed-load scenario: a fresh topic and index, a prelude the job must index first
 * (its start-up, JIT and first checkpoint are not the lag), then the paced records while the
 * cluster's count is sampled every 100 ms through each node's own port ({@link NodeCounts}) with
 * the job's and the broker's CPU, a search counts what is visible every 200 ms ({@link
 * VisibleCounts}), and the nodes' CPU is read where the load window starts and ends; the stall, when
 * asked for, from the first paced record to the last one visible. Then the checks: the index holds every record exactly once (its count and
 * {@code index_total} equal the records produced, sampled ids of every partition are there).
 */
final class FixedLoadRuns {

    private static final ObjectMapper JSON = new ObjectMapper();
    static final long SAMPLE_MS = 100;

    /**
     * @param lag               the nodes' indexed count: over the samples from the first paced record to the producer's
     *                          last; then the drain
     * @param visible           the count a search returns ({@link VisibleLag}), the same way
     * @param unansweredSearches searches that failed or timed out, left out of {@code visible}
     * @param startupSeconds    job start to the prelude indexed and visible
     * @param bulks             the paced records, the {@code _bulk} requests and the shard operations from the prelude
     *                          indexed to the last record indexed
     * @param writePoolTasks    the write thread pools' completed tasks meanwhile: the shard operations' cross-check
     * @param esCpu             the nodes' CPU over the load window, per document indexed in it
     * @param hostCpuPressure   the share of the load window some task of the host waited for a CPU ({@link HostCpuPressure})
     * @param clientCpuSeconds  the job's process (start-up included) and the broker (the producer's share too), to the last record indexed
     * @param steadyClientCpuMsPerDoc the same per paced record, from 25% to 75% of them indexed
     */
    record Result(
            FixedLoadScenario.Variant variant,
            int round,
            long records,
            long counted,
            long indexTotal,
            IndexLag.Summary lag,
            VisibleLag.Series visible,
            long unansweredSearches,
            double startupSeconds,
            BulkShape bulks,
            long writePoolTasks,
            EsCpuPerDocs esCpu,
            double hostCpuPressure,
            double clientCpuSeconds,
            double steadyClientCpuMsPerDoc,
            long[] sampleMillis,
            long[] indexed,
            long[] lagMillis) {
        boolean exactlyOnce() {
            return counted == records && indexTotal == records;
        }

        @Override
        public String toString() {
            IndexLag.Summary seen = visible.summary();
            return String.format(
                    "indexed lag p50 %.2f s, p99 %.2f s over %d samples, drain %.2f s; visible lag p50 %.2f s, p99 %.2f s"
                            + " over %d searches (%d unanswered), drain %.2f s; %.0f docs per _bulk, %.0f per shard operation;"
                            + " ES CPU %.3f s per 1,000 docs; host CPU pressure %.0f%%; %,d of %,d counted, index_total %,d; start-up %.1f s;"
                            + " client CPU %.1f s/M docs (steady %.1f)",
                    lag.p50() / 1000,
                    lag.p99() / 1000,
                    lag.samples(),
                    lag.drain() / 1000,
                    seen.p50() / 1000,
                    seen.p99() / 1000,
                    seen.samples(),
                    unansweredSearches,
                    seen.drain() / 1000,
                    bulks.docsPerBulk(),
                    bulks.docsPerShardOperation(),
                    esCpu.secondsPerThousandDocs(),
                    hostCpuPressure * 100,
                    counted,
                    records,
                    indexTotal,
                    startupSeconds,
                    clientCpuSeconds / (records / 1e6),
                    steadyClientCpuMsPerDoc * 1000);
        }
    }

    private final BenchOptions options;
    private final BenchServers servers;
    private final ElasticsearchCluster cluster;
    private final ElasticsearchNode victim;
    private final ClientCpu broker;
    private final OfficialRuns official;
    private final EsStats stats;

    FixedLoadRuns(
            BenchOptions options,
            BenchServers servers,
            ElasticsearchCluster cluster,
            ElasticsearchNode victim,
            ClientCpu broker,
            OfficialRuns official) {
        this.options = options;
        this.servers = servers;
        this.cluster = cluster;
        this.victim = victim;
        this.broker = broker;
        this.official = official;
        this.stats = new EsStats(cluster.urls().get(0), cluster.nodes());
    }

    /** Records produced before the clock starts: one second's worth. */
    static long prelude(BenchOptions options) {
        return options.rate;
    }

    Result run(FixedLoadScenario.Variant variant, int round) throws Exception {
        Http es = cluster.http();
        List<String> urls = cluster.urls();
        String index = "kes-bench-fixed-" + variant.name() + "-r" + round;
        createIndex(es, index, options.shards);
        long prelude = prelude(options);
        long paced = (long) options.rate * options.seconds;
        long total = prelude + paced;
        FixedLoadJob job = null;
        try (PacedProducer producer =
                        new PacedProducer(servers.broker().bootstrapServers(), index, options.partitions);
                NodeCounts counts = new NodeCounts(urls, index);
                VisibleCounts visible = new VisibleCounts(searchNode().url(), index)) {
            producer.prelude(prelude);
            long brokerAtStart = broker.brokerMillis();
            long t0 = System.nanoTime();
            job = FixedLoadJob.start(options, official, variant.mode(), index, producer, urls, total);
            // the prelude searchable too, so that the visible lag's clock starts where the indexed lag's does
            while (counts.total() < prelude || visible.highest() < prelude) {
                job.check();
                if (System.nanoTime() - t0 > TimeUnit.SECONDS.toNanos(30)
                        && counts.total() == 0
                        && OfficialRuns.indexTotal(es, index) > 0) {
                    throw new IllegalStateException("the nodes' own stats count no document of " + index
                            + " while the index holds some: NodeCounts reads the wrong field of _nodes/_local/stats");
                }
                if (System.nanoTime() - t0 > TimeUnit.MINUTES.toNanos(3)) {
                    throw new IllegalStateException("the job indexed " + counts.total() + " and searches counted "
                            + visible.highest() + " of the " + prelude + " prelude records in 3 minutes");
                }
                Thread.sleep(SAMPLE_MS);
            }
            double startup = (System.nanoTime() - t0) / 1e9;
            EsStats.Snapshot before = stats.snapshot();
            long shardOperationsBefore = stats.shardBulkOperations(index);
            PauseInjector stall = variant.stall()
                    ? new PauseInjector(victim, servers, FixedLoadScenario.STALL_MS, FixedLoadScenario.STALL_PERIOD_MS)
                    : null;
            List<long[]> samples = new ArrayList<>(); // nanos, paced records indexed, client CPU ms
            long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
            CompletableFuture<long[]> acked;
            EsCpuPerDocs esCpu = null;
            double hostCpuPressure = Double.NaN;
            if (stall != null) {
                stall.start();
            }
            try {
                acked = CompletableFuture.supplyAsync(() -> producer.paced(options.rate, options.seconds, start));
                long deadline = start + TimeUnit.SECONDS.toNanos(options.seconds + 180L);
                long cpu = 0;
                // the nodes' CPU and indexed count where the load window starts (the first sample) and ends (the
                // first sample after the producer's last record)
                long esCpuFrom = 0;
                long indexedFrom = 0;
                long stalledFrom = -1;
                long windowFrom = 0;
                for (long next = start; ; next += TimeUnit.MILLISECONDS.toNanos(SAMPLE_MS)) {
                    long wait = next - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    long now = System.nanoTime();
                    long indexed = counts.total() - prelude;
                    cpu = Math.max(cpu, job.cpuMillis() + broker.brokerMillis() - brokerAtStart);
                    samples.add(new long[] {now, indexed, cpu});
                    if (samples.size() == 1) {
                        esCpuFrom = stats.localCpuMillis();
                        indexedFrom = indexed;
                        stalledFrom = HostCpuPressure.stalledMicros();
                        windowFrom = now;
                    } else if (esCpu == null && (acked.isDone() || indexed >= paced)) {
                        esCpu = new EsCpuPerDocs(stats.localCpuMillis() - esCpuFrom, indexed - indexedFrom);
                        hostCpuPressure =
                                HostCpuPressure.share(stalledFrom, HostCpuPressure.stalledMicros(), now - windowFrom);
                    }
                    if (indexed >= paced) {
                        break;
                    }
                    job.check();
                    if (acked.isCompletedExceptionally()) {
                        acked.join(); // the producer's failure
                    }
                    if (now > deadline) {
                        throw new IllegalStateException(String.format(
                                "%,d of %,d paced records indexed %d s after the producer's start",
                                indexed, paced, options.seconds + 180));
                    }
                }
                awaitVisible(visible, total);
            } finally {
                if (stall != null) {
                    stall.stop();
                }
            }
            long[] ackedNanos = acked.get(60, TimeUnit.SECONDS);
            EsStats.Snapshot delta = stats.snapshot().minus(before);
            long shardOperations = stats.shardBulkOperations(index) - shardOperationsBefore;
            long counted = es.refreshAndCount(index);
            long indexTotal = OfficialRuns.indexTotal(es, index);
            checkIds(es, index, PacedProducer.endOffsets(total, options.partitions));
            long[] times = samples.stream().mapToLong(s -> s[0]).toArray();
            long[] indexed = samples.stream().mapToLong(s -> s[1]).toArray();
            long[] cpu = samples.stream().mapToLong(s -> s[2]).toArray();
            long[] lags = IndexLag.lagMillis(start, ackedNanos, times, indexed);
            long[] offsets =
                    samples.stream().mapToLong(s -> (s[0] - start) / 1_000_000).toArray();
            return new Result(
                    variant,
                    round,
                    total,
                    counted,
                    indexTotal,
                    IndexLag.Summary.of(
                            lags, times, Arrays.stream(ackedNanos).max().orElse(start)),
                    VisibleLag.of(visible.samples(), start, prelude, ackedNanos),
                    visible.unanswered(),
                    startup,
                    new BulkShape(paced, delta.bulkHttpRequests(), shardOperations),
                    delta.writeCompleted(),
                    esCpu,
                    hostCpuPressure,
                    cpu[cpu.length - 1] / 1000.0,
                    IndexLag.cpuMillisPerDoc(indexed, cpu, paced, 0.25, 0.75),
                    offsets,
                    indexed,
                    lags);
        } finally {
            if (job != null) {
                job.stop();
            }
            es.send("DELETE", "/" + index, null);
            try (Admin admin = KafkaBroker.adminAt(servers.broker().bootstrapServers())) {
                admin.deleteTopics(List.of(index)).all().get(60, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * The cluster's own CPU, in cores, over {@code --seconds} with no load: an empty index of the
     * runs' shape, its count polled through every node and searched every 200 ms as in a run, no
     * job, no producer, no stall. Every run's ES CPU holds this much per second whoever writes
     * (refreshes, the bench's own stats calls and searches, the nodes' housekeeping): about a
     * quarter of it at 3,000 records/s (2026-12-03), so the report also sets each system's CPU
     * above it.
     */
    double idleCores(int round) throws Exception {
        Http es = cluster.http();
        String index = "kes-bench-fixed-idle-r" + round;
        createIndex(es, index, options.shards);
        try (NodeCounts counts = new NodeCounts(cluster.urls(), index);
                VisibleCounts visible = new VisibleCounts(searchNode().url(), index)) {
            long cpuFrom = stats.localCpuMillis();
            long from = System.nanoTime();
            Thread.sleep(TimeUnit.SECONDS.toMillis(options.seconds)); // both poll on threads of their own
            return (stats.localCpuMillis() - cpuFrom) / ((System.nanoTime() - from) / 1e6);
        } finally {
            es.send("DELETE", "/" + index, null);
        }
    }

    /**
     * The node searches go through: not the stalled one. A search through a stopped node gets no
     * answer at all, which is that node's outage, not how fresh the index is; through another node it
     * waits for the stopped node's shards only, as a user's search does.
     */
    private ElasticsearchNode searchNode() {
        return cluster.nodes().stream().filter(n -> n != victim).findFirst().orElseThrow();
    }

    /** Until a search counts every record: the refresh after the last one indexed makes it visible. */
    private static void awaitVisible(VisibleCounts visible, long total) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(VISIBLE_DRAIN_SECONDS);
        while (visible.highest() < total && System.nanoTime() < deadline) {
            Thread.sleep(VisibleCounts.PERIOD_MS);
        }
    }

    /** How long the last records may take to become searchable before the visible drain is given up (NaN). */
    private static final long VISIBLE_DRAIN_SECONDS = 30;

    static final int NODES = 3;

    /**
     * Primaries on each of the 3 nodes ({@code total_shards_per_node}; no replicas), so that every
     * node holds its share and the stalled node's share is known.
     */
    static int primariesPerNode(int shards) {
        return (shards + NODES - 1) / NODES;
    }

    /**
     * {@code shards} primaries spread over the 3 nodes, no replicas, refreshed every second as
     * Elasticsearch's default: the visible lag is measured against the refresh users get, and
     * kes's bulks wait as long as the index's refresh hides their documents.
     */
    private static void createIndex(Http es, String index, int shards) throws Exception {
        es.send("DELETE", "/" + index, null);
        es.send(
                        "PUT",
                        "/" + index,
                        "{\"settings\":{\"number_of_shards\":" + shards + ",\"number_of_replicas\":0,"
                                + "\"index.routing.allocation.total_shards_per_node\":" + primariesPerNode(shards) + ","
                                + "\"refresh_interval\":\"" + REFRESH_INTERVAL.toSeconds() + "s"
                                + "\",\"translog.durability\":\"async\"}}")
                .requireOk("creating " + index);
        es.get("/_cluster/health/" + index + "?wait_for_status=green&timeout=60s")
                .requireOk("health of " + index);
    }

    /** Set explicitly: left at its default, a shard that no search has hit for 30 s skips its refreshes. */
    static final Duration REFRESH_INTERVAL = Duration.ofSeconds(1);

    /** The first and last record of every partition and 8 between them sit under kes's id for their coordinates. */
    private static void checkIds(Http es, String index, long[] ends) throws Exception {
        Random random = new Random(Bench.SEED);
        List<String> ids = new ArrayList<>();
        for (int p = 0; p < ends.length; p++) {
            if (ends[p] == 0) {
                continue;
            }
            ids.add(KafkaCoordinateId.of(index, p, 0));
            ids.add(KafkaCoordinateId.of(index, p, ends[p] - 1));
            for (int i = 0; i < 8; i++) {
                ids.add(KafkaCoordinateId.of(index, p, (long) (random.nextDouble() * ends[p])));
            }
        }
        JsonNode docs = JSON.readTree(es.send(
                                "POST",
                                "/" + index + "/_mget?_source=false",
                                JSON.writeValueAsString(java.util.Map.of("ids", ids)))
                        .requireOk("_mget of sampled ids")
                        .body())
                .path("docs");
        for (JsonNode d : docs) {
            if (!d.path("found").asBoolean()) {
                throw new IllegalStateException("document " + d.path("_id").asText() + " (sampled id) is missing from "
                        + index + ": a record was lost or indexed under another id");
            }
        }
    }
}
