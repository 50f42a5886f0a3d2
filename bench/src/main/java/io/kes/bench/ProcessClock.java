package io.kes.bench;

import io.kes.stack.Http;
import java.util.concurrent.TimeUnit;

/**
 * How the users-path scenario times a process that indexes a topic (kes's {@code bin/kes run},
 * the topic-reading loader): its clock from just before the start to the exit; every 100 ms the
 * process tree's CPU and the index's {@code index_total}, so the first document indexed (start-up),
 * and the time and client CPU between 25% and 75% of the documents indexed (the steady window). The
 * client CPU is the process tree's (its highest reading before the exit, at most 100 ms old) plus
 * {@link ClientCpu}'s: the Kafka broker it reads from and the bench JVM that watches it.
 */
final class ProcessClock {

    /**
     * @param seconds                process start to exit
     * @param startupSeconds         process start to the first document indexed; NaN when none was seen
     * @param steadyDocsPerSecond    the middle half of the documents over the time it took
     * @param clientCpuSeconds       the process tree plus {@link ClientCpu}, start to exit
     * @param steadyClientCpuSeconds the same from 25% to 75% of the documents indexed
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
     * throws, naming {@code what} and where its output is).
     */
    static Result time(
            ProcessBuilder builder,
            Http es,
            String index,
            long docs,
            ClientCpu clientCpu,
            int timeoutMinutes,
            String what)
            throws Exception {
        long clientBefore = clientCpu.millis();
        long t0 = System.nanoTime();
        Process process = builder.start();
        long processCpu = 0;
        long first = 0;
        long quarter = 0;
        long threeQuarters = 0;
        long cpuAtQuarter = 0;
        long cpuAtThreeQuarters = 0;
        long all = 0;
        try {
            long deadline = t0 + TimeUnit.MINUTES.toNanos(timeoutMinutes);
            while (!process.waitFor(100, TimeUnit.MILLISECONDS)) {
                // the highest reading: one taken as the process is reaped finds no /proc entry and reads 0
                // (a 17 s run once reported 1.0 s of client CPU, the broker's and the bench's alone)
                processCpu = Math.max(processCpu, EsStats.treeCpuMillis(process.pid()));
                long indexed = OfficialRuns.indexTotal(es, index);
                long now = System.nanoTime();
                first = first == 0 && indexed > 0 ? now : first;
                if (quarter == 0 && indexed >= docs / 4) {
                    quarter = now;
                    cpuAtQuarter = processCpu + clientCpu.millis();
                }
                if (threeQuarters == 0 && indexed >= docs * 3 / 4) {
                    threeQuarters = now;
                    cpuAtThreeQuarters = processCpu + clientCpu.millis();
                }
                all = all == 0 && indexed >= docs ? now : all;
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
        boolean steady = threeQuarters > quarter && quarter > 0;
        return new Result(
                (end - t0) / 1e9,
                first == 0 ? Double.NaN : (first - t0) / 1e9,
                steady ? (docs * 3 / 4 - docs / 4) / ((threeQuarters - quarter) / 1e9) : Double.NaN,
                (processCpu + clientCpu.millis() - clientBefore) / 1000.0,
                steady ? (cpuAtThreeQuarters - cpuAtQuarter) / 1000.0 : Double.NaN,
                process.exitValue(),
                all == 0 ? Double.NaN : (end - all) / 1e9);
    }
}
