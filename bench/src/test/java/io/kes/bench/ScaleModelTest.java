package io.kes.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ScaleModelTest {

    /** 100 ms for every single-shard bulk; mixed bulks measured at the same mean. */
    private static ScaleModel constant(double mixedMeasuredMs) {
        long[] base = new long[1000];
        Arrays.fill(base, 100);
        return new ScaleModel(base, mixedMeasuredMs);
    }

    @Test
    void withoutPausesAndWithMixedBulksAsFastAsSingleOnesTheModelPredictsNoGain() {
        ScaleModel model = constant(100);

        assertThat(model.fixedShare()).isCloseTo(1.0, within(0.01));
        for (int nodes : ScaleModel.NODES) {
            assertThat(model.predict(nodes, 2 * nodes, false).ratio()).isCloseTo(1.0, within(0.01));
        }
    }

    @Test
    void theFixedShareIsFittedToTheMeasuredMixedLatency() {
        // 6 shards of 1/6 of the documents each: 100 * (f + (1 - f) / 6) = 50 -> f = 0.4
        assertThat(constant(50).fixedShare()).isCloseTo(0.4, within(0.01));
    }

    @Test
    void pausesCostMixedBulksMoreTheMoreNodesEachOneWaitsFor() {
        ScaleModel model = constant(100);

        double three = model.predict(3, 6, true).ratio();
        double hundred = model.predict(100, 200, true).ratio();

        assertThat(three).isGreaterThan(1.05);
        assertThat(hundred).isGreaterThan(three);
    }

    @Test
    void aSingleShardBulkOnAPausingNodeWaitsOutThePauseOnly() {
        ScaleModel model = constant(100);

        // one node in three pauses 200 ms every 2 s: a 100 ms request there overlaps a pause with
        // probability (100 + 200) / 2000 and then waits ~100 ms on average
        double single = model.predict(3, 6, true).singleMs();
        assertThat(single).isBetween(100.0, 100.0 + 200.0 / 3);
    }

    @Test
    void chainedWritersFillTheirBulksAtOneWriterShareOfEachShard() {
        // 30,000 docs/s over 96 shards, linger 1 s: 312 per shard keyed, 39 per buffer with 8 chained writers
        assertThat(ScaleModel.docsPerBulk(1000, 30_000, 1.0, 96, 8, true)).isCloseTo(312.5, within(0.1));
        assertThat(ScaleModel.docsPerBulk(1000, 30_000, 1.0, 96, 8, false)).isCloseTo(39.1, within(0.1));
        assertThat(ScaleModel.docsPerBulk(1000, 30_000, 1.0, 6, 2, true)).isEqualTo(1000);
    }
}
