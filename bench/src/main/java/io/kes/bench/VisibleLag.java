package io.kes.bench;

import java.util.Comparator;
import java.util.List;

/**
 * The search-visible lag of one run, from the searches {@link VisibleCounts} made: the same
 * count-based lag as {@link IndexLag}'s (the answer's time minus when the producer had produced as
 * many paced records as the search counted), over the count a search returns instead of the count
 * the nodes indexed; its percentiles over the load and its drain apart, as the indexed lag's.
 */
final class VisibleLag {

    private VisibleLag() {}

    /**
     * @param atMillis      when each search answered, in ms since the paced records' start, in time order, up to the
     *                      first that counted every record
     * @param visible       the paced records each counted (the prelude taken off; below 0 while the prelude was not yet visible)
     * @param lagMillis     each one's lag
     * @param summary       percentiles over the answers up to the producer's last record; the drain from it to
     *                      the first answer counting every record (NaN when none did)
     */
    record Series(long[] atMillis, long[] visible, long[] lagMillis, IndexLag.Summary summary) {}

    /**
     * @param samples    the answered searches, in any order
     * @param startNanos when production of the paced records started: searches sent before it are left out
     * @param prelude    records indexed before the clock started, which every count includes once visible
     * @param ackedNanos when each paced record was acknowledged, in any order
     */
    static Series of(List<VisibleCounts.Sample> samples, long startNanos, long prelude, long[] ackedNanos) {
        List<VisibleCounts.Sample> during = samples.stream()
                .filter(s -> s.sentNanos() >= startNanos)
                .sorted(Comparator.comparingLong(VisibleCounts.Sample::answeredNanos))
                .toList();
        long total = prelude + ackedNanos.length;
        int end = 0;
        while (end < during.size() && during.get(end).count() < total) {
            end++;
        }
        boolean allVisible = end < during.size();
        List<VisibleCounts.Sample> kept = allVisible ? during.subList(0, end + 1) : during;
        long[] times =
                kept.stream().mapToLong(VisibleCounts.Sample::answeredNanos).toArray();
        long[] visible = kept.stream().mapToLong(s -> s.count() - prelude).toArray();
        long[] lags = IndexLag.lagMillis(startNanos, ackedNanos, times, visible);
        long lastAck = java.util.Arrays.stream(ackedNanos).max().orElse(startNanos);
        IndexLag.Summary summary = IndexLag.Summary.of(lags, times, lastAck);
        if (!allVisible) {
            summary = new IndexLag.Summary(
                    summary.p50(), summary.p95(), summary.p99(), summary.max(), summary.samples(), Double.NaN);
        }
        long[] atMillis = java.util.Arrays.stream(times)
                .map(t -> (t - startNanos) / 1_000_000)
                .toArray();
        return new Series(atMillis, visible, lags, summary);
    }
}
