package io.kes.connector.bulk;

import io.kes.connector.DocumentOperation;
import io.kes.connector.routing.PredictedShard;
import java.util.function.Function;

/** A writer's routing for unit tests: predictions from a function, no pipeline moves, every index predictable. */
final class FixedRouting implements WriterRouting {

    private final Function<DocumentOperation, PredictedShard> predictions;

    FixedRouting(Function<DocumentOperation, PredictedShard> predictions) {
        this.predictions = predictions;
    }

    @Override
    public PredictedShard predict(DocumentOperation op) {
        return predictions.apply(op);
    }

    @Override
    public boolean movedByPipeline(DocumentOperation op, PredictedShard predicted, String storedIn) {
        return false;
    }

    @Override
    public int unpredictableIndices() {
        return 0;
    }
}
