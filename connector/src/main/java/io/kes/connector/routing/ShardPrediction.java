package io.kes.connector.routing;

import org.apache.flink.annotation.PublicEvolving;

/**
 * Where the routing step expects a document to land: a shard of one {@link IndexLayout}, any
 * shard of it ({@link #UNKNOWN_SHARD}: the index exists but its routing is not predictable for
 * this document), or nothing known at all ({@link #UNKNOWN}: the index does not exist yet, or its
 * metadata could not be read). Instances are shared (one per layout and shard), so carrying one
 * per document allocates nothing.
 */
@PublicEvolving
public final class ShardPrediction {

    public static final int UNKNOWN_SHARD = -1;

    /** No layout: the shard and the index's primary terms are unknown. */
    public static final ShardPrediction UNKNOWN = new ShardPrediction(null, UNKNOWN_SHARD);

    private final IndexLayout layout;
    private final int shard;

    ShardPrediction(IndexLayout layout, int shard) {
        this.layout = layout;
        this.shard = shard;
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

    @Override
    public String toString() {
        return layout == null ? "unknown" : layout.index() + (shard >= 0 ? "[" + shard + "]" : "[any shard]");
    }
}
