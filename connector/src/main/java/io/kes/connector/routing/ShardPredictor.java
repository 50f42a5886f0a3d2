package io.kes.connector.routing;

import io.kes.connector.DocumentOperation;
import java.util.Optional;
import org.apache.flink.annotation.Internal;

/**
 * Predicts the shard of every document from its index's {@link IndexLayout} (see
 * {@link IndexRoutingTable}): documents routed by id or custom routing get their shard; documents
 * without either (Elasticsearch generates the id), for unpredictable indices, or missing one of
 * the two on a partitioned index, or naming an ingest pipeline that may move them, get the
 * layout's "any shard"; documents for indices that do not
 * exist yet get {@link ShardPrediction#UNKNOWN}.
 */
@Internal
public final class ShardPredictor {

    private final IndexRoutingTable table;

    public ShardPredictor(IndexRoutingTable table) {
        this.table = table;
    }

    public ShardPrediction predict(DocumentOperation op) {
        Optional<IndexLayout> found = table.layoutFor(op.index());
        if (found.isEmpty()) {
            return ShardPrediction.UNKNOWN;
        }
        IndexLayout layout = found.get();
        IndexRouting routing = layout.routing();
        if (routing == null || (op.id() == null && op.routing() == null)
                || (routing.partitioned() && (op.id() == null || op.routing() == null))
                || (op.pipeline() != null && table.pipelineMovesDocuments(op.pipeline(), layout))) {
            return layout.anyShard();
        }
        return layout.shard(routing.shardOf(op.id(), op.routing()));
    }

    /** Concrete indices whose routing cannot be predicted. */
    public int unpredictableIndices() {
        return table.unpredictableIndices();
    }
}
