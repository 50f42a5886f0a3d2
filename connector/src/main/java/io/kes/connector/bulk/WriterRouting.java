package io.kes.connector.bulk;

import io.kes.connector.DocumentOperation;
import io.kes.connector.routing.PredictedShard;
import io.kes.connector.routing.ShardPredictor;

/**
 * What the writer asks of shard prediction: {@link ShardPredictor} in production (index layouts
 * read from the cluster), fixed predictions in the writer's unit tests.
 */
interface WriterRouting {

    PredictedShard predict(DocumentOperation op);

    /** Whether the document was stored elsewhere than predicted: moved by an ingest pipeline. */
    boolean movedByPipeline(DocumentOperation op, PredictedShard predicted, String storedIn);

    /** How to fence a document acknowledged as stored in {@code storedIn} ({@link ShardPredictor#fenceAs}); as predicted by default. */
    default PredictedShard fenceAs(PredictedShard predicted, String storedIn) {
        return predicted;
    }

    /** Indices whose shards cannot be predicted (a gauge). */
    int unpredictableIndices();

    static WriterRouting of(ShardPredictor predictor) {
        return new WriterRouting() {
            @Override
            public PredictedShard predict(DocumentOperation op) {
                return predictor.predict(op);
            }

            @Override
            public boolean movedByPipeline(DocumentOperation op, PredictedShard predicted, String storedIn) {
                return predictor.movedByPipeline(op, predicted, storedIn);
            }

            @Override
            public PredictedShard fenceAs(PredictedShard predicted, String storedIn) {
                return predictor.fenceAs(predicted, storedIn);
            }

            @Override
            public int unpredictableIndices() {
                return predictor.unpredictableIndices();
            }
        };
    }
}
