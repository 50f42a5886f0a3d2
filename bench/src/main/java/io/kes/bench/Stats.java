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

    /** The median of the values that are numbers; NaN when none is. */
    static double median(double[] values) {
        double[] v =
                Arrays.stream(values).filter(d -> !Double.isNaN(d)).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    static double ratio(long a, long b) {
        return b == 0 ? Double.NaN : (double) a / b;
    }
}
