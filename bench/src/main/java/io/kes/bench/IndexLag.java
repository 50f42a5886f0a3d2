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

    /** Lag percentiles of one run, in milliseconds, over {@code samples} samples. */
    record Summary(double p50, double p95, double p99, double max, int samples) {
        static Summary of(long[] lagMillis) {
            return new Summary(
                    Stats.percentile(lagMillis, 50),
                    Stats.percentile(lagMillis, 95),
                    Stats.percentile(lagMillis, 99),
                    Stats.percentile(lagMillis, 100),
                    lagMillis.length);
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
