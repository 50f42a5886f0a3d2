package io.kes.bench;

import io.kes.stack.Http;
import java.util.ArrayList;
import java.util.List;

/** Measured runs of the direct loader: the ceiling on one node, and every 3-node mode. */
final class LoaderRuns {

    private final EsStats stats;
    private final Http es;
    private final ClientCpu clientCpu;
    private final int threads;
    private long[] lastLatencies = new long[0];
    private double lastSteadyClientCpuSeconds = Double.NaN;

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
     * Client CPU seconds of the last {@link #run} from 25% to 75% of its documents indexed (the
     * steady window, as kes's and the official sink's): NaN when the run was too short for the
     * 100 ms samples to see both.
     */
    double lastSteadyClientCpuSeconds() {
        return lastSteadyClientCpuSeconds;
    }

    /**
     * Sends {@code bulks} into {@code index}; the clock runs from the first request to the count after
     * a refresh.
     *
     * @param primaryUrlByShard when given, each single-shard bulk goes to the node holding its shard's primary
     */
    Run run(
            String mode,
            int round,
            String index,
            DirectLoader.Bulks bulks,
            List<String> nodeUrls,
            String[] primaryUrlByShard)
            throws Exception {
        EsStats.Snapshot before = stats.snapshot();
        long clientCpuBefore = clientCpu.millis();
        long t0 = System.nanoTime();
        SteadyWindow steady = new SteadyWindow(index, bulks.docs());
        DirectLoader.Result r;
        try {
            r = DirectLoader.load(bulks, index, nodeUrls, primaryUrlByShard, threads);
        } finally {
            lastSteadyClientCpuSeconds = steady.stop();
        }
        lastLatencies = r.latencyMillis();
        long clientMillis = clientCpu.millis() - clientCpuBefore;
        long counted = es.refreshAndCount(index);
        long done = System.nanoTime();
        EsStats.Snapshot delta = stats.snapshot().minus(before);
        long shardOps = stats.shardBulkOperations(index);
        return new Run(
                mode,
                round,
                bulks.docs(),
                counted,
                (done - t0) / 1e9,
                delta.cpuMillis() / 1000.0,
                clientMillis / 1000.0,
                Double.NaN,
                Stats.percentile(r.latencyMillis(), 50),
                Stats.percentile(r.latencyMillis(), 99),
                Stats.ratio(shardOps, delta.bulkHttpRequests()),
                delta.writeRejected(),
                Double.NaN,
                Double.NaN,
                Double.NaN,
                bulks.bodies().size());
    }

    /**
     * The long-running ceiling: every window's bulks into one index, one window after the other with
     * no pause between them, each window timed on its own (the last one to the refresh and the count
     * of the whole index), as the long-running jobs' windows are.
     */
    List<Run> windows(String mode, String index, List<DirectLoader.Bulks> windows, String url) throws Exception {
        List<Run> runs = new ArrayList<>();
        long before = 0;
        for (int w = 0; w < windows.size(); w++) {
            DirectLoader.Bulks bulks = windows.get(w);
            long shardOpsBefore = stats.shardBulkOperations(index);
            EsStats.Snapshot start = stats.snapshot();
            long clientCpuBefore = clientCpu.millis();
            long t0 = System.nanoTime();
            DirectLoader.Result r = DirectLoader.load(bulks, index, List.of(url), threads);
            long clientMillis = clientCpu.millis() - clientCpuBefore;
            boolean last = w == windows.size() - 1;
            long counted = last ? es.refreshAndCount(index) - before : bulks.docs();
            long done = System.nanoTime();
            EsStats.Snapshot delta = stats.snapshot().minus(start);
            long shardOps = stats.shardBulkOperations(index) - shardOpsBefore;
            runs.add(new Run(
                    mode,
                    w + 1,
                    bulks.docs(),
                    counted,
                    (done - t0) / 1e9,
                    delta.cpuMillis() / 1000.0,
                    clientMillis / 1000.0,
                    Double.NaN,
                    Stats.percentile(r.latencyMillis(), 50),
                    Stats.percentile(r.latencyMillis(), 99),
                    Stats.ratio(shardOps, delta.bulkHttpRequests()),
                    delta.writeRejected(),
                    Double.NaN,
                    Double.NaN,
                    Double.NaN,
                    bulks.bodies().size()));
            before += bulks.docs();
        }
        return runs;
    }

    /**
     * Client CPU at 25% and at 75% of the documents indexed, read by a thread of its own every
     * 100 ms while the loader sends (the loader's own threads are busy sending).
     */
    private final class SteadyWindow {
        private final Thread thread;
        private volatile long atQuarter = -1;
        private volatile long atThreeQuarters = -1;
        private volatile boolean running = true;

        SteadyWindow(String index, long docs) {
            thread = new Thread(
                    () -> {
                        while (running && atThreeQuarters < 0) {
                            try {
                                long indexed = OfficialRuns.indexTotal(es, index);
                                if (atQuarter < 0 && indexed >= docs / 4) {
                                    atQuarter = clientCpu.millis();
                                }
                                if (atThreeQuarters < 0 && indexed >= docs * 3 / 4) {
                                    atThreeQuarters = clientCpu.millis();
                                }
                                Thread.sleep(100);
                            } catch (InterruptedException e) {
                                return;
                            } catch (Exception e) {
                                return; // no steady window for this run: NaN, the whole run's CPU still stands
                            }
                        }
                    },
                    "kes-bench-loader-steady-window");
            thread.setDaemon(true);
            thread.start();
        }

        double stop() throws InterruptedException {
            running = false;
            thread.join(5_000);
            return atQuarter >= 0 && atThreeQuarters > atQuarter ? (atThreeQuarters - atQuarter) / 1000.0 : Double.NaN;
        }
    }
}
