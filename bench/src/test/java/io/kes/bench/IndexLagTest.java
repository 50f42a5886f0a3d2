package io.kes.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class IndexLagTest {

    private static final long MS = 1_000_000;

    @Test
    void lagIsTheSampleTimeMinusWhenTheIndexedCountHadBeenProduced() {
        // records acknowledged at 10, 20, 30, 40 ms after a start at 0
        long[] acked = {10 * MS, 20 * MS, 30 * MS, 40 * MS};
        long[] lags = IndexLag.lagMillis(0, acked, new long[] {100 * MS, 150 * MS}, new long[] {2, 4});

        assertThat(lags).containsExactly(80, 110);
    }

    @Test
    void acknowledgementsCountInTimeOrderNotInRecordOrder() {
        // partition 1 answered record 0 after records 1 and 2: the 2nd record produced in time was at 20 ms
        long[] acked = {30 * MS, 10 * MS, 20 * MS};
        long[] lags = IndexLag.lagMillis(0, acked, new long[] {50 * MS}, new long[] {2});

        assertThat(lags).containsExactly(30);
    }

    @Test
    void nothingIndexedLagsSinceProductionStarted() {
        long[] lags = IndexLag.lagMillis(5 * MS, new long[] {10 * MS}, new long[] {505 * MS}, new long[] {0});

        assertThat(lags).containsExactly(500);
    }

    @Test
    void aRecordIndexedBeforeItsAcknowledgementArrivedLagsZeroNotLess() {
        long[] lags = IndexLag.lagMillis(0, new long[] {10 * MS, 90 * MS}, new long[] {50 * MS}, new long[] {2});

        assertThat(lags).containsExactly(0);
    }

    @Test
    void aCountAboveTheAcknowledgedRecordsIsHeldToTheLastOne() {
        long[] lags = IndexLag.lagMillis(0, new long[] {10 * MS}, new long[] {60 * MS}, new long[] {3});

        assertThat(lags).containsExactly(50);
    }

    @Test
    void sampleTimesAndCountsMustPair() {
        assertThatThrownBy(() -> IndexLag.lagMillis(0, new long[] {1}, new long[] {1, 2}, new long[] {1}))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void summaryIsNearestRankPercentilesAndTheMaximum() {
        long[] lags = new long[100];
        long[] times = new long[100];
        for (int i = 0; i < 100; i++) {
            lags[i] = 100 - i; // 100 .. 1 ms, unsorted on purpose
            times[i] = i * 100 * MS;
        }
        IndexLag.Summary s = IndexLag.Summary.of(lags, times, 99 * 100 * MS);

        assertThat(s.p50()).isEqualTo(50);
        assertThat(s.p95()).isEqualTo(95);
        assertThat(s.p99()).isEqualTo(99);
        assertThat(s.max()).isEqualTo(100);
        assertThat(s.samples()).isEqualTo(100);
        assertThat(s.drain()).isEqualTo(0);
    }

    @Test
    void samplesAfterTheProducersLastRecordMakeTheDrainNotThePercentiles() {
        // while the producer writes the lag stays at 30 ms; its last record (at 500 ms) waits for a
        // stalled node, and the count, with nothing left to average it with, lags 100-400 ms
        long[] times = {100 * MS, 200 * MS, 300 * MS, 400 * MS, 500 * MS, 600 * MS, 700 * MS, 800 * MS, 900 * MS};
        long[] lags = {30, 30, 30, 30, 30, 100, 200, 300, 400};

        IndexLag.Summary s = IndexLag.Summary.of(lags, times, 500 * MS);

        assertThat(s.p99()).isEqualTo(30);
        assertThat(s.max()).isEqualTo(30);
        assertThat(s.samples()).isEqualTo(5);
        assertThat(s.drain()).isEqualTo(400);
    }

    @Test
    void steadyCpuPerDocIsTakenBetweenTheSamplesThatReachAQuarterAndThreeQuarters() {
        // start-up: 5,000 ms of CPU before the first document; then 1 ms per document
        long[] counts = {0, 0, 100, 250, 500, 750, 1000};
        long[] cpu = {5_000, 5_000, 5_100, 5_250, 5_500, 5_750, 6_000};

        assertThat(IndexLag.cpuMillisPerDoc(counts, cpu, 1000, 0.25, 0.75)).isEqualTo(1.0);
        assertThat(IndexLag.cpuMillisPerDoc(counts, cpu, 1000, 0, 1)).isEqualTo(1.0);
    }

    @Test
    void steadyCpuIsNotANumberWhenTheSamplesNeverReachTheWindow() {
        assertThat(IndexLag.cpuMillisPerDoc(new long[] {0, 300}, new long[] {0, 10}, 1000, 0.25, 0.75))
                .isNaN();
    }
}
