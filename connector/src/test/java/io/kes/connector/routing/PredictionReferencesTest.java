package io.kes.connector.routing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A router's prediction crosses the slot exchange as a reference, and its writer gets back the
 * very prediction the router made (its layout, and so the primary terms the fence holds it
 * against), or null, and predicts again, whenever it cannot be sure of that.
 */
class PredictionReferencesTest {

    private final ShardPredictor predictor = new ShardPredictor(null);
    private final IndexLayout logs = IndexLayout.of("logs", "u1", new long[] {1, 2, 3}, null);

    @Test
    void everyKindOfPredictionComesBackAsTheSameInstance() {
        for (PredictedShard predicted :
                new PredictedShard[] {logs.shard(0), logs.shard(2), logs.mayMoveFrom(1), logs.anyShard()}) {
            long reference = predictor.referenceOf(predicted);
            assertThat(predictor.resolve(predictor.id(), reference))
                    .as("%s", predicted)
                    .isSameAs(predicted);
        }
    }

    @Test
    void aLaterLayoutOfTheSameIndexIsAnotherReference() {
        IndexLayout reread = IndexLayout.of("logs", "u1", new long[] {1, 5, 3}, null);
        long before = predictor.referenceOf(logs.shard(1));
        long after = predictor.referenceOf(reread.shard(1));
        assertThat(after).isNotEqualTo(before);
        assertThat(predictor.resolve(predictor.id(), before).layout()).isSameAs(logs);
        assertThat(predictor.resolve(predictor.id(), after).layout()).isSameAs(reread);
    }

    @Test
    void anUnknownIndexIsNotReferencedAndIsPredictedAgain() {
        assertThat(predictor.referenceOf(PredictedShard.UNKNOWN)).isZero();
        assertThat(predictor.resolve(predictor.id(), 0)).isNull();
    }

    /** A writer in another JVM (another table) must not read a reference as one of its own layouts. */
    @Test
    void anotherPredictorsReferenceIsPredictedAgain() {
        ShardPredictor other = new ShardPredictor(null);
        long reference = other.referenceOf(
                IndexLayout.of("logs", "u1", new long[] {1, 1, 1}, null).shard(0));
        predictor.referenceOf(logs.shard(0)); // this predictor's layout number 1 too
        assertThat(other.id()).isNotEqualTo(predictor.id());
        assertThat(predictor.resolve(other.id(), reference)).isNull();
    }

    /** A record that waited in the exchange while thousands of layouts were read since. */
    @Test
    void aLayoutOlderThanTheNewestReferencedOnesIsPredictedAgain() {
        long old = predictor.referenceOf(logs.shard(0));
        for (int i = 0; i < PredictionReferences.REFERENCED_LAYOUTS; i++) {
            predictor.referenceOf(
                    IndexLayout.of("logs-" + i, "u" + i, new long[] {1}, null).shard(0));
        }
        assertThat(predictor.resolve(predictor.id(), old)).isNull();
    }
}
