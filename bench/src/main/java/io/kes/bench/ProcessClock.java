package io.kes.bench;

import io.kes.stack.Http;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * How the users-path scenario times a process that indexes a topic (kes's {@code bin/kes run},
 * the topic-reading loader): its clock from just before the start to the exit; every 100 ms the
 * process tree's CPU and the index's {@code index_total}, so the first document indexed (start-up),
 * and the time and client CPU between 25% and 75% of the documents indexed, or less where the
 * process may have read every record sooner (the steady window, {@link SteadyWindow}). The
 * client CPU is the process tree's (its highest reading before the exit, at most 100 ms old) plus
 * {@link ClientCpu}'s: the Kafka broker it reads from and the bench JVM that watches it.
 */
final class ProcessClock {

    /**
     * @param seconds                process start to exit
     * @param startupSeconds         process start to the first document indexed; NaN when none was seen
     * @param steadyDocsPerSecond    the documents of the steady window ({@link SteadyWindow}: 25% to 75% indexed, or
     *                               less) over the time it took
     * @param clientCpuSeconds       the process tree plus {@link ClientCpu}, start to exit
     * @param steadyClientCpuSeconds the client CPU over the steady window, scaled to half the documents (the window's
     *                               whole span), so that every mode's is per the same count
     * @param tailSeconds            every document indexed to exit (a bounded job's end: the end-of-input flush, the final checkpoint, shutdown); NaN when not seen
     */
    record Result(
            double seconds,
            double startupSeconds,
            double steadyDocsPerSecond,
            double clientCpuSeconds,
            double steadyClientCpuSeconds,
            int exitCode,
            double tailSeconds) {}

    private ProcessClock() {}

    /**
     * Starts {@code builder} and waits for its exit, at most {@code timeoutMinutes} (then kills it and
     * throws, naming {@code what} and where its output is). {@code stillReading}, asked after the
     * exit: up to how many documents indexed the process was surely still reading records, where
     * its steady window must end at the latest ({@link SteadyWindow}).
     */
    static Result time(
            ProcessBuilder builder,
            Http es,
            String index,
            long docs,
            ClientCpu clientCpu,
            int timeoutMinutes,
            String what,
            LongSupplier stillReading)
            throws Exception {
        long clientBefore = clientCpu.millis();
        long t0 = System.nanoTime();
        Process process = builder.start();
        long processCpu = 0;
        long first = 0;
        long all = 0;
        List<long[]> samples = new ArrayList<>(); // nanos, indexed, client CPU millis
        try {
            long deadline = t0 + TimeUnit.MINUTES.toNanos(timeoutMinutes);
            while (!process.waitFor(100, TimeUnit.MILLISECONDS)) {
                // the highest reading: one taken as the process is reaped finds no /proc entry and reads 0
                // (a 17 s run once reported 1.0 s of client CPU, the broker's and the bench's alone)
                processCpu = Math.max(processCpu, EsStats.treeCpuMillis(process.pid()));
                long indexed = OfficialRuns.indexTotal(es, index);
                long now = System.nanoTime();
                first = first == 0 && indexed > 0 ? now : first;
                all = all == 0 && indexed >= docs ? now : all;
                samples.add(new long[] {now, indexed, processCpu + clientCpu.millis()});
                if (now > deadline) {
                    throw new IllegalStateException(what + " still running after " + timeoutMinutes + " minutes");
                }
            }
        } finally {
            if (process.isAlive()) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
            }
        }
        long end = System.nanoTime();
        long[] from = firstReaching(samples, docs / 4);
        long windowEnd = SteadyWindow.end(docs, stillReading.getAsLong());
        long[] to = windowEnd < 0 ? null : firstReaching(samples, windowEnd);
        boolean steady = from != null && to != null && to[0] > from[0];
        return new Result(
                (end - t0) / 1e9,
                first == 0 ? Double.NaN : (first - t0) / 1e9,
                steady ? (windowEnd - docs / 4) / ((to[0] - from[0]) / 1e9) : Double.NaN,
                (processCpu + clientCpu.millis() - clientBefore) / 1000.0,
                steady ? (to[2] - from[2]) / 1000.0 * (docs / 2.0) / (windowEnd - docs / 4) : Double.NaN,
                process.exitValue(),
                all == 0 ? Double.NaN : (end - all) / 1e9);
    }

    private static long[] firstReaching(List<long[]> samples, long indexed) {
        for (long[] sample : samples) {
            if (sample[1] >= indexed) {
                return sample;
            }
        }
        return null;
    }
}
