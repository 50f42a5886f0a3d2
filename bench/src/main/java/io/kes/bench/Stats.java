package io.kes.bench;

import java.util.Arrays;

/** The arithmetic the report and the scale model share. */
final class Stats {

    private Stats() {}

    static double percentile(long[] values, double p) {
        if (values.length == 0) {
            return Double.NaN;
        }
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank))];
    }

    static double ratio(long a, long b) {
        return b == 0 ? Double.NaN : (double) a / b;
    }
}
