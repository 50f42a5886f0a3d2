package io.kes.connector.bulk;

import io.kes.connector.DocumentOperation;
import io.kes.connector.routing.ShardPrediction;
import io.kes.connector.routing.ShardPredictor;

/**
 * What the writer asks of shard prediction: {@link ShardPredictor} in production (index layouts
 * read from the cluster), fixed predictions in the writer's unit tests.
 */
interface ShardPredictions {

    ShardPrediction predict(DocumentOperation op);

    /** Whether the document was stored elsewhere than predicted: moved by an ingest pipeline. */
    boolean movedByPipeline(DocumentOperation op, ShardPrediction predicted, String storedIn);

    /** How to fence a document acknowledged as stored in {@code storedIn} ({@link ShardPredictor#fenceAs}); as predicted by default. */
    default ShardPrediction fenceAs(ShardPrediction predicted, String storedIn) {
        return predicted;
    }

    /** Indices whose shards cannot be predicted (a gauge). */
    int unpredictableIndices();

    static ShardPredictions of(ShardPredictor predictor) {
        return new ShardPredictions() {
            @Override
            public ShardPrediction predict(DocumentOperation op) {
                return predictor.predict(op);
            }

            @Override
            public boolean movedByPipeline(DocumentOperation op, ShardPrediction predicted, String storedIn) {
                return predictor.movedByPipeline(op, predicted, storedIn);
            }

            @Override
            public ShardPrediction fenceAs(ShardPrediction predicted, String storedIn) {
                return predictor.fenceAs(predicted, storedIn);
            }

            @Override
            public int unpredictableIndices() {
                return predictor.unpredictableIndices();
            }
        };
    }
}
