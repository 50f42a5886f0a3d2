package io.kes.connector.bulk;

/**
 * How many bulks one node may have in flight, adapted to how the node answers (additive increase,
 * multiplicative decrease, as Vector's adaptive request concurrency and TCP congestion control do).
 * Round-trip times are averaged over windows of about one round trip; at the end of each window the
 * window's mean is compared with a moving baseline (an exponentially weighted mean and variance of
 * the earlier windows):
 * <ul>
 *   <li>the node pushed back (HTTP 429, items rejected with {@code es_rejected_execution_exception}),
 *       or the mean rose above the baseline by more than {@value #RTT_DEVIATION_SCALE} standard
 *       deviations (and more than a tenth): the limit is cut to {@value #DECREASE_RATIO} of itself (at least 1);</li>
 *   <li>else, if the limit was reached in the window and the mean stayed at or under the baseline:
 *       it rises by one, up to the ceiling.</li>
 * </ul>
 * A raise needs evidence that more concurrency was wanted (the limit was reached); without it the
 * limit would drift up on an idle node. The limit starts at the ceiling ({@code bulk.max_in_flight}):
 * what the user allowed is what kes sends with until a node shows trouble; a node that does gets
 * fewer bulks at once, and its share back as it recovers. Task thread only; no clock of its own.
 */
final class AdaptiveConcurrency {

    /** Vector's defaults, tuned there by simulation against services with varied responses to load. */
    static final double DECREASE_RATIO = 0.9;

    static final double EWMA_ALPHA = 0.4;
    static final double RTT_DEVIATION_SCALE = 2.5;
    /**
     * A rise of less than this share of the baseline is no jump, whatever the deviation: after the
     * first windows the variance is still near zero, and any slower window would count.
     */
    static final double MIN_JUMP = 0.1;

    private final int ceiling;
    private int limit;
    private boolean hasBaseline;
    private double baselineMean;
    private double baselineVariance;
    private double windowSum;
    private int windowCount;
    private long windowEndsNanos;
    private boolean reachedLimit;
    private boolean backPressure;
    private long cuts;

    AdaptiveConcurrency(int ceiling) {
        if (ceiling < 1) {
            throw new IllegalArgumentException("ceiling must be at least 1, got " + ceiling);
        }
        this.ceiling = ceiling;
        this.limit = ceiling;
    }

    int limit() {
        return limit;
    }

    /** How often the limit was cut so far. */
    long cuts() {
        return cuts;
    }

    /** A bulk went out; {@code inFlight} counts it. */
    void started(int inFlight) {
        if (inFlight >= limit) {
            reachedLimit = true;
        }
    }

    /**
     * An attempt ended.
     *
     * @param rttNanos     its round trip, or negative when it is no measure of the node's speed
     *                     (failed, or some items must be retried)
     * @param backPressure the node refused work because it is busy (429, rejected items)
     */
    void ended(long nowNanos, long rttNanos, boolean backPressure) {
        this.backPressure |= backPressure;
        if (rttNanos >= 0) {
            windowSum += rttNanos;
            windowCount++;
        }
        if (!hasBaseline) {
            if (windowCount > 0) {
                double mean = windowSum / windowCount;
                hasBaseline = true;
                baselineMean = mean;
                startWindow(nowNanos);
            } else if (this.backPressure) {
                cut();
                startWindow(nowNanos);
            }
            return;
        }
        if (nowNanos < windowEndsNanos) {
            return;
        }
        double current = windowCount > 0 ? windowSum / windowCount : -1;
        double threshold = Math.max(Math.sqrt(baselineVariance) * RTT_DEVIATION_SCALE, baselineMean * MIN_JUMP);
        if (limit < ceiling && reachedLimit && !this.backPressure && current >= 0 && current <= baselineMean) {
            limit++;
        } else if (this.backPressure || (current >= 0 && current > baselineMean + threshold)) {
            cut();
        }
        if (current >= 0) {
            // exponentially weighted mean and variance of the windows' means
            double delta = current - baselineMean;
            baselineMean += EWMA_ALPHA * delta;
            baselineVariance = (1 - EWMA_ALPHA) * (baselineVariance + EWMA_ALPHA * delta * delta);
        }
        startWindow(nowNanos);
    }

    private void cut() {
        int next = Math.max(1, (int) (limit * DECREASE_RATIO));
        if (next < limit) {
            cuts++;
        }
        limit = next;
    }

    /** The next window lasts about one round trip: long enough for the current limit to be used. */
    private void startWindow(long nowNanos) {
        windowEndsNanos = nowNanos + (long) baselineMean;
        windowSum = 0;
        windowCount = 0;
        reachedLimit = false;
        backPressure = false;
    }
}
