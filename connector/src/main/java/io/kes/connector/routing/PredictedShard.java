package io.kes.connector.routing;

import org.apache.flink.annotation.Internal;

/**
 * Where the routing step expects a document to land: a shard of one {@link IndexLayout}, any
 * shard of it ({@link #UNKNOWN_SHARD}: the index exists but its routing is not predictable for
 * this document), or nothing known at all ({@link #UNKNOWN}: the index does not exist yet, or its
 * metadata could not be read). Instances are shared (one per layout and shard), so carrying one
 * per document allocates nothing.
 */
@Internal
public final class PredictedShard {

    public static final int UNKNOWN_SHARD = -1;

    /** No layout: the shard and the index's primary terms are unknown. */
    public static final PredictedShard UNKNOWN = new PredictedShard(null, UNKNOWN_SHARD);

    private final IndexLayout layout;
    private final int shard;
    private final int batchShard;

    PredictedShard(IndexLayout layout, int shard) {
        this(layout, shard, shard);
    }

    PredictedShard(IndexLayout layout, int shard, int batchShard) {
        this.layout = layout;
        this.shard = shard;
        this.batchShard = batchShard;
    }

    /** The layout predicted against, or null. */
    public IndexLayout layout() {
        return layout;
    }

    /** The predicted shard, or {@link #UNKNOWN_SHARD}. */
    public int shard() {
        return shard;
    }

    public boolean knowsShard() {
        return shard >= 0;
    }

    /**
     * Whether an answer saying the document was stored in {@code storedIn} (null: it does not say)
     * leaves it where predicted, as it does nearly every document: then it was not moved by a
     * pipeline ({@link ShardPredictor#movedByPipeline}), decided without a lock or the operation.
     */
    public boolean storedAsPredicted(String storedIn) {
        return storedIn == null || !knowsShard() || storedIn.equals(layout.index());
    }

    /**
     * The shard whose buffer the document joins: {@link #shard()}, or, for a document whose routing
     * value maps to a shard but whose ingest pipeline may move it, that shard all the same. What
     * decides the buffer must not depend on anything but the document's index, id and routing: the
     * writes of one id (a pipeline's index operations, their deletes, which run no pipeline) must
     * meet in one buffer whatever the pipeline verdicts say, or a later write could leave first.
     */
    public int batchShard() {
        return batchShard;
    }

    @Override
    public String toString() {
        return layout == null
                ? "unknown"
                : layout.index()
                        + (shard >= 0
                                ? "[" + shard + "]"
                                : batchShard >= 0 ? "[any shard, batched with " + batchShard + "]" : "[any shard]");
    }
}
