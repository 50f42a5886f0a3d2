package io.kes.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The fixed load's CSVs: {@code fixed-load.csv}, a row per run with its shape (rate, shards,
 * writers), and {@code fixed-load-samples.csv}, every sample of every run. The indexed count is
 * sampled every 100 ms and the visible count answers every 200 ms at times of its own, so a sample
 * row carries one of them or both (same millisecond), the other's cells empty.
 */
final class FixedLoadCsv {

    static final String RUN_HEADER = "mode,stall,round,rate,shards,writers,records,counted,index_total,"
            + "lag_p50_ms,lag_p95_ms,lag_p99_ms,lag_max_ms,samples,drain_ms,"
            + "visible_lag_p50_ms,visible_lag_p95_ms,visible_lag_p99_ms,visible_lag_max_ms,searches,unanswered_searches,"
            + "visible_drain_ms,startup_s,bulk_requests,shard_operations,write_pool_tasks,docs_per_bulk,docs_per_shard_operation,"
            + "es_cpu_ms_load_window,docs_indexed_load_window,es_cpu_s_per_1000_docs,host_cpu_pressure,client_cpu_s,steady_client_cpu_ms_per_doc\n";

    static final String SAMPLE_HEADER = "mode,stall,round,ms,indexed,lag_ms,visible,visible_lag_ms\n";

    private FixedLoadCsv() {}

    static void write(Path out, BenchOptions options, List<FixedLoadRuns.Result> runs) throws IOException {
        StringBuilder csv = new StringBuilder(RUN_HEADER);
        StringBuilder samples = new StringBuilder(SAMPLE_HEADER);
        for (FixedLoadRuns.Result r : runs) {
            csv.append(runRow(options, r));
            String prefix = r.variant().mode() + "," + r.variant().stall() + "," + r.round() + ",";
            for (String row : sampleRows(r.sampleMillis(), r.indexed(), r.lagMillis(), r.visible())) {
                samples.append(prefix).append(row).append('\n');
            }
        }
        Files.writeString(out.resolve("fixed-load.csv"), csv);
        Files.writeString(out.resolve("fixed-load-samples.csv"), samples);
    }

    static String runRow(BenchOptions options, FixedLoadRuns.Result r) {
        IndexLag.Summary seen = r.visible().summary();
        return String.format(
                Locale.ROOT,
                "%s,%b,%d,%d,%d,%d,%d,%d,%d,%.0f,%.0f,%.0f,%.0f,%d,%.0f,%.0f,%.0f,%.0f,%.0f,%d,%d,%.0f,%.2f,%d,%d,%d,%.1f,%.1f,"
                        + "%d,%d,%.4f,%.3f,%.3f,%.4f%n",
                r.variant().mode(),
                r.variant().stall(),
                r.round(),
                options.rate,
                options.shards,
                options.parallelism,
                r.records(),
                r.counted(),
                r.indexTotal(),
                r.lag().p50(),
                r.lag().p95(),
                r.lag().p99(),
                r.lag().max(),
                r.lag().samples(),
                r.lag().drain(),
                seen.p50(),
                seen.p95(),
                seen.p99(),
                seen.max(),
                seen.samples(),
                r.unansweredSearches(),
                seen.drain(),
                r.startupSeconds(),
                r.bulks().bulkRequests(),
                r.bulks().shardOperations(),
                r.writePoolTasks(),
                r.bulks().docsPerBulk(),
                r.bulks().docsPerShardOperation(),
                r.esCpu().cpuMillis(),
                r.esCpu().docsIndexed(),
                r.esCpu().secondsPerThousandDocs(),
                r.hostCpuPressure(),
                r.clientCpuSeconds(),
                r.steadyClientCpuMsPerDoc());
    }

    /**
     * {@code ms,indexed,lag_ms,visible,visible_lag_ms} in time order: the indexed samples and the
     * searches' answers merged by their millisecond since the start, one row where both fall on it.
     */
    static List<String> sampleRows(long[] ms, long[] indexed, long[] lagMillis, VisibleLag.Series visible) {
        List<String> rows = new java.util.ArrayList<>();
        long[] seenMs = visible.atMillis();
        int i = 0;
        int v = 0;
        while (i < ms.length || v < seenMs.length) {
            boolean takeIndexed = i < ms.length && (v >= seenMs.length || ms[i] <= seenMs[v]);
            boolean takeVisible = v < seenMs.length && (i >= ms.length || seenMs[v] <= ms[i]);
            long at = takeIndexed ? ms[i] : seenMs[v];
            String indexedCells = takeIndexed ? indexed[i] + "," + lagMillis[i] : ",";
            String visibleCells = takeVisible ? visible.visible()[v] + "," + visible.lagMillis()[v] : ",";
            rows.add(at + "," + indexedCells + "," + visibleCells);
            i += takeIndexed ? 1 : 0;
            v += takeVisible ? 1 : 0;
        }
        return rows;
    }
}
