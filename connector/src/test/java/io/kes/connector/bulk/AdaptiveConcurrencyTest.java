package io.kes.connector.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The per-node limit: additive increase while latency holds, multiplicative decrease on trouble. */
class AdaptiveConcurrencyTest {

    private static final long MS = 1_000_000;

    /** A fake clock, and one round trip after another at the given latency with the limit in use. */
    private long now;

    private void window(AdaptiveConcurrency c, long rttMillis, boolean backPressure) {
        c.started(c.limit()); // the limit is in use
        now += rttMillis * MS + 1;
        c.ended(now, rttMillis * MS, backPressure);
    }

    @Test
    void startsAtTheCeilingWhatTheUserAllowed() {
        assertThat(new AdaptiveConcurrency(4).limit()).isEqualTo(4);
    }

    @Test
    void aLatencyJumpCutsTheLimitToNineTenthsRoundedDown() {
        AdaptiveConcurrency c = new AdaptiveConcurrency(8);
        for (int i = 0; i < 5; i++) {
            window(c, 50 + i % 2 * 4, false); // baseline ~52 ms, a little noise
        }
        assertThat(c.limit()).isEqualTo(8);
        window(c, 2_000, false); // a frozen node answers late
        assertThat(c.limit()).isEqualTo(7);
        assertThat(c.cuts()).isEqualTo(1);
    }

    @Test
    void rejectedWorkCutsTheLimitEvenAtTheUsualLatency() {
        AdaptiveConcurrency c = new AdaptiveConcurrency(4);
        window(c, 50, false);
        window(c, 50, true); // 429 or es_rejected_execution items
        assertThat(c.limit()).isEqualTo(3);
        window(c, 50, true);
        assertThat(c.limit()).isEqualTo(2);
    }

    @Test
    void theLimitNeverGoesBelowOne() {
        AdaptiveConcurrency c = new AdaptiveConcurrency(2);
        window(c, 50, false);
        for (int i = 0; i < 10; i++) {
            window(c, 50, true);
        }
        assertThat(c.limit()).isEqualTo(1);
    }

    @Test
    void steadyLatencyWithTheLimitInUseRaisesItByOnePerRoundTripUpToTheCeiling() {
        AdaptiveConcurrency c = new AdaptiveConcurrency(4);
        window(c, 50, false);
        window(c, 50, true);
        window(c, 50, true);
        assertThat(c.limit()).isEqualTo(2);
        window(c, 50, false);
        assertThat(c.limit()).isEqualTo(3);
        window(c, 50, false);
        assertThat(c.limit()).isEqualTo(4);
        window(c, 50, false);
        window(c, 50, false);
        assertThat(c.limit()).as("ceiling: bulk.max_in_flight").isEqualTo(4);
    }

    @Test
    void aLimitThatIsNotUsedIsNotRaised() {
        AdaptiveConcurrency c = new AdaptiveConcurrency(4);
        window(c, 50, false);
        window(c, 50, true);
        assertThat(c.limit()).isEqualTo(3);
        for (int i = 0; i < 5; i++) {
            c.started(1); // one bulk at a time: no evidence that more would help
            now += 51 * MS;
            c.ended(now, 50 * MS, false);
        }
        assertThat(c.limit()).isEqualTo(3);
    }

    @Test
    void answersWithinTheCurrentRoundTripWaitForTheWindowToEnd() {
        AdaptiveConcurrency c = new AdaptiveConcurrency(4);
        window(c, 100, false); // baseline 100 ms: windows of ~100 ms
        c.started(4);
        now += 10 * MS;
        c.ended(now, 10 * MS, true);
        assertThat(c.limit()).as("judged only at the window's end").isEqualTo(4);
        now += 100 * MS;
        c.ended(now, 100 * MS, false);
        assertThat(c.limit()).as("the window saw a rejection").isEqualTo(3);
    }
}
