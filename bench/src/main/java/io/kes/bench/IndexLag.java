package io.kes.bench;

import java.util.Arrays;

/**
 * The arithmetic of the fixed-load scenario, pure so that it is unit-tested: how far behind the
 * producer the index runs, and the client's CPU per document in the steady window.
 *
 * <p>Lag is count-based: at a sample time {@code t} the cluster has indexed {@code c} of the paced
 * records, and the producer had produced {@code c} records at the time its {@code c}-th record was
 * acknowledged by Kafka (acknowledgements sorted: partitions answer out of order, so the
 * {@code c}-th in time, not the record numbered {@code c}); the lag is {@code t} minus that time.
 * Count 0 counts as produced when production started, so a cluster that has indexed nothing yet
 * lags by the whole time since then. A count acknowledged after the sample (the consumer can see a
 * record before the producer's callback runs) lags 0, never less.
 */
final class IndexLag {

    private IndexLag() {}

    /**
     * Lag percentiles of one run, in milliseconds, over the {@code samples} taken while the producer
     * wrote (up to its last acknowledged record), and the drain: from that last record to the first
     * sample with every record indexed. After the producer stops, a count-based lag no longer
     * averages a slow node's records with the others': it becomes the wait of the last records
     * alone, the longest of any record's, and when a stall begins as the load ends those samples
     * (up to 10 at 100 ms) were the whole p99 of 600. The end is reported as what it is, the drain.
     */
    record Summary(double p50, double p95, double p99, double max, int samples, double drain) {
        static Summary of(long[] lagMillis, long[] sampleNanos, long lastAckNanos) {
            int during = 0;
            while (during < sampleNanos.length && sampleNanos[during] <= lastAckNanos) {
                during++;
            }
            long[] load = during == 0 ? lagMillis : Arrays.copyOf(lagMillis, during);
            double drain = sampleNanos.length == 0
                    ? Double.NaN
                    : Math.max(0, sampleNanos[sampleNanos.length - 1] - lastAckNanos) / 1e6;
            return new Summary(
                    Stats.percentile(load, 50),
                    Stats.percentile(load, 95),
                    Stats.percentile(load, 99),
                    Stats.percentile(load, 100),
                    load.length,
                    drain);
        }
    }

    /**
     * The lag of each sample, in milliseconds.
     *
     * @param startNanos     when production started (count 0)
     * @param ackedNanos     when each paced record was acknowledged, in any order
     * @param sampleNanos    when each sample was taken
     * @param indexedCounts  the paced records indexed at each sample (beyond the acknowledged ones: capped)
     */
    static long[] lagMillis(long startNanos, long[] ackedNanos, long[] sampleNanos, long[] indexedCounts) {
        if (sampleNanos.length != indexedCounts.length) {
            throw new IllegalArgumentException(
                    sampleNanos.length + " sample times for " + indexedCounts.length + " counts");
        }
        long[] acked = ackedNanos.clone();
        Arrays.sort(acked);
        long[] lags = new long[sampleNanos.length];
        for (int i = 0; i < sampleNanos.length; i++) {
            long c = Math.min(Math.max(indexedCounts[i], 0), acked.length);
            long producedAt = c == 0 ? startNanos : acked[(int) c - 1];
            lags[i] = Math.max(0, sampleNanos[i] - producedAt) / 1_000_000;
        }
        return lags;
    }

    /**
     * CPU milliseconds per document between the first samples at which {@code fromShare} and
     * {@code toShare} of {@code total} documents were indexed ({@code 0.25, 0.75}: the steady
     * window, start-up and the tail left out); NaN when the samples do not reach both.
     *
     * @param cpuMillis the client's CPU at each sample, cumulative
     */
    static double cpuMillisPerDoc(
            long[] indexedCounts, long[] cpuMillis, long total, double fromShare, double toShare) {
        int from = firstReaching(indexedCounts, (long) Math.ceil(total * fromShare));
        int to = firstReaching(indexedCounts, (long) Math.ceil(total * toShare));
        if (from < 0 || to < 0 || indexedCounts[to] == indexedCounts[from]) {
            return Double.NaN;
        }
        return (double) (cpuMillis[to] - cpuMillis[from]) / (indexedCounts[to] - indexedCounts[from]);
    }

    private static int firstReaching(long[] counts, long count) {
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] >= count) {
                return i;
            }
        }
        return -1;
    }
}
