package io.kes.connector.routing;

import io.kes.connector.cluster.IndexMetadata;
import java.util.Arrays;
import org.apache.flink.annotation.Internal;

/**
 * One concrete index as the routing step saw it when it predicted shards: which index exactly
 * (name and uuid: a deleted and re-created index keeps its name, not its uuid), how many shards it
 * had, their primary terms at that moment, and how it routes documents ({@code null} when that
 * cannot be predicted). The checkpoint fence holds every write against the layout it was predicted
 * with: the terms are the snapshot a failover is detected against, and a write whose index turns
 * out to be another one (a rollover, a re-created index) is fenced index-wide instead of on the
 * predicted shard.
 *
 * <p>{@link #generation()} stays the same object while the index's identity and routing stay the
 * same, across reloads of its metadata: the writer compares it to see whether predictions for a
 * target name may have moved.
 */
@Internal
public final class IndexLayout {

    private final String index;
    private final String uuid;
    private final int numberOfShards;
    private final long[] primaryTerms;
    private final long[] baselineTerms;
    private final IndexRouting routing;
    private final Object generation;
    private final long refreshIntervalMillis;
    private final PredictedShard[] shards;
    private final PredictedShard[] mayMoveFrom;
    private final PredictedShard anyShard;
    /**
     * Its number in {@link ShardPredictor#referenceOf}'s references, 0 until first referenced; set
     * once, under the predictor's lock, before the layout is published to the writers.
     */
    int referenceNumber;

    IndexLayout(IndexMetadata metadata, IndexRouting routing, Object generation) {
        this.index = metadata.name();
        this.uuid = metadata.uuid();
        this.numberOfShards = metadata.numberOfShards();
        this.primaryTerms = metadata.primaryTerms().clone();
        this.baselineTerms = new long[numberOfShards];
        for (int s = 0; s < numberOfShards; s++) {
            baselineTerms[s] = primaryTerm(s);
        }
        this.routing = routing;
        this.generation = generation;
        this.refreshIntervalMillis = metadata.refreshInterval().toMillis();
        this.shards = new PredictedShard[numberOfShards];
        this.mayMoveFrom = new PredictedShard[numberOfShards];
        for (int s = 0; s < numberOfShards; s++) {
            shards[s] = new PredictedShard(this, s);
            mayMoveFrom[s] = new PredictedShard(this, PredictedShard.UNKNOWN_SHARD, s);
        }
        this.anyShard = new PredictedShard(this, PredictedShard.UNKNOWN_SHARD);
    }

    /**
     * Whether reading {@code metadata} with calibration {@code generation} would give this layout
     * again: the same index, shard count, primary terms and routing. The table then keeps this one,
     * so that predictions made before and after a read are the same objects (a writer resolves its
     * routers' references to them, and a bulk counts its shards by them).
     */
    boolean sameAs(IndexMetadata metadata, Object generation) {
        return generation == this.generation
                && index.equals(metadata.name())
                && uuid.equals(metadata.uuid())
                && numberOfShards == metadata.numberOfShards()
                && Arrays.equals(primaryTerms, metadata.primaryTerms());
    }

    /** For tests of what is built on layouts. */
    public static IndexLayout of(String index, String uuid, long[] primaryTerms, IndexRouting routing) {
        IndexMetadata metadata = new IndexMetadata(
                index,
                uuid,
                primaryTerms.length,
                primaryTerms.length,
                1,
                true,
                primaryTerms,
                IndexMetadata.DEFAULT_TRANSLOG_SYNC_INTERVAL);
        return new IndexLayout(metadata, routing, new Object());
    }

    /** The concrete index. */
    public String index() {
        return index;
    }

    public String uuid() {
        return uuid;
    }

    public int numberOfShards() {
        return numberOfShards;
    }

    /**
     * {@code index.refresh_interval} in milliseconds when this layout was read; negative: the index
     * does not refresh by itself ({@code -1}).
     */
    public long refreshIntervalMillis() {
        return refreshIntervalMillis;
    }

    /** The primary term of {@code shard} when this layout was read; at least 1 (a shard without a started primary reads as 1, the lowest). */
    public long primaryTerm(int shard) {
        return shard < primaryTerms.length ? Math.max(1, primaryTerms[shard]) : 1;
    }

    /** {@link #primaryTerm} of every shard; shared, do not modify. */
    public long[] primaryTermPerShard() {
        return baselineTerms;
    }

    /** How documents are routed, or null when kes cannot predict it (the index routes on document fields, or calibration failed). */
    public IndexRouting routing() {
        return routing;
    }

    /** The same object for as long as this index's identity and routing stay the same. */
    public Object generation() {
        return generation;
    }

    /** A document predicted for {@code shard} of this index. */
    public PredictedShard shard(int shard) {
        return shards[shard];
    }

    /**
     * A document whose routing value maps to {@code shard} but that an ingest pipeline may put
     * elsewhere: buffered with {@code shard}'s documents (with its id's other writes), fenced on
     * every shard of the index.
     */
    public PredictedShard mayMoveFrom(int shard) {
        return mayMoveFrom[shard];
    }

    /** A document for this index whose shard is not predicted. */
    public PredictedShard anyShard() {
        return anyShard;
    }

    @Override
    public String toString() {
        return index + " (uuid " + uuid + ", " + numberOfShards + " shards, primary terms "
                + Arrays.toString(primaryTerms) + ")";
    }
}
