package io.kes.bench;

import io.kes.stack.Http;
import java.util.List;

/** Measured runs of the direct loader: the ceiling on one node, and every 3-node mode. */
final class LoaderRuns {

    private final EsStats stats;
    private final Http es;
    private final ClientCpu clientCpu;
    private final int threads;
    private long[] lastLatencies = new long[0];

    LoaderRuns(Http es, EsStats stats, ClientCpu clientCpu, int threads) {
        this.es = es;
        this.stats = stats;
        this.clientCpu = clientCpu;
        this.threads = threads;
    }

    /** Per-bulk latencies (ms) of the last run, request sent to response read. */
    long[] lastLatencies() {
        return lastLatencies;
    }

    /**
     * Sends {@code bulks} into {@code index}; the clock runs from the first request to the count after
     * a refresh.
     *
     * @param primaryUrlByShard when given, each single-shard bulk goes to the node holding its shard's primary
     */
    Run run(String mode, int round, String index, DirectLoader.Bulks bulks, List<String> nodeUrls, String[] primaryUrlByShard)
            throws Exception {
        EsStats.Snapshot before = stats.snapshot();
        long clientCpuBefore = clientCpu.millis();
        long t0 = System.nanoTime();
        DirectLoader.Result r = DirectLoader.load(bulks, index, nodeUrls, primaryUrlByShard, threads);
        lastLatencies = r.latencyMillis();
        long clientMillis = clientCpu.millis() - clientCpuBefore;
        long counted = es.refreshAndCount(index);
        long done = System.nanoTime();
        EsStats.Snapshot delta = stats.snapshot().minus(before);
        long shardOps = stats.shardBulkOperations(index);
        return new Run(mode, round, bulks.docs(), counted, (done - t0) / 1e9, delta.cpuMillis() / 1000.0, clientMillis / 1000.0,
                Double.NaN, Stats.percentile(r.latencyMillis(), 50), Stats.percentile(r.latencyMillis(), 99),
                Stats.ratio(shardOps, delta.bulkHttpRequests()), delta.writeRejected(), Double.NaN, Double.NaN, Double.NaN,
                bulks.bodies().size());
    }
}
