package io.kes.connector.fence;

import io.kes.connector.cluster.IndexMetadata;
import io.kes.connector.routing.IndexLayout;
import io.kes.connector.routing.PredictedShard;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.annotation.Internal;

/**
 * What Elasticsearch acknowledged since the last checkpoint, per concrete index: which shards were
 * written, and for each a <em>baseline</em> primary term that the checkpoint fence compares with
 * the shard's current one. A current term above the baseline means the primary was replaced after
 * (or while) it took writes that an async translog may never have synced.
 *
 * <p>The baseline of a write is the term it was applied under, when the response says so. When it
 * does not (a 409 on create: the document was written by an earlier attempt whose response was
 * lost; a {@code noop} update, which reports the stored document's term), it is the term the
 * shard had when its layout was read, before the write was sent. Per shard the lowest baseline is
 * kept: a shard that fails over mid-interval acknowledges earlier writes under term 1 and later
 * ones under term 2; the term-1 writes are the ones at risk, and only the lowest term still shows
 * them.
 *
 * <p>Every shard of a written index counts as written, each against its own baseline from the
 * layout (the write's shard is a prediction: an index's default or final pipeline added since the
 * layout was read may have routed it elsewhere); the predicted shard also against the term the
 * write was applied under. Where the write landed in another index than predicted (a rollover,
 * a re-created index), every shard of that index counts as written; without a layout, against the lowest
 * term its writes were applied under (1 when unknown). A shard-level entry whose layout is no
 * longer the index's (another uuid or shard count by the time the fence looks) counts index-wide
 * too: the prediction it was made with may have sent the write elsewhere.
 */
@Internal
public final class AcknowledgedWrites {

    /** One concrete index's writes. */
    private static final class IndexWrites {
        /** The layout that {@link #onShard} was predicted with (null: no shard-level entry yet). */
        String uuid;

        int numberOfShards;
        /** Lowest baseline per predicted shard; 0 = not written. */
        long[] onShard = new long[0];
        /** Lowest baseline per shard for writes of unknown shard, from their layouts; null = none. */
        long[] anyShard;
        /** The layout baselines last added to {@link #anyShard} (shared per layout): one write per layout does the work. */
        long[] lastAnyShard;
        /** Lowest term of writes of unknown shard and no layout; 0 = none. */
        long floor;

        /** A write on {@code shard} of the index as the layout {@code (uuid, shards)} had it. */
        void onShard(String layoutUuid, int shards, int shard, long term) {
            if (uuid != null && (!uuid.equals(layoutUuid) || numberOfShards != shards)) {
                demoteShardEntries(); // predicted with two layouts in one interval: keep both safe
            }
            uuid = layoutUuid;
            numberOfShards = shards;
            if (onShard.length < shards) {
                onShard = java.util.Arrays.copyOf(onShard, shards);
            }
            onShard[shard] = lowest(onShard[shard], term);
        }

        /** Writes of unknown shard, each shard held against its entry of {@code baselines}. */
        void anyShard(long[] baselines) {
            if (baselines == lastAnyShard) {
                return;
            }
            lastAnyShard = baselines;
            if (anyShard == null) {
                anyShard = new long[baselines.length];
            } else if (anyShard.length < baselines.length) {
                anyShard = java.util.Arrays.copyOf(anyShard, baselines.length);
            }
            for (int s = 0; s < baselines.length; s++) {
                if (baselines[s] > 0) {
                    anyShard[s] = lowest(anyShard[s], baselines[s]);
                }
            }
        }

        void demoteShardEntries() {
            for (long term : onShard) {
                if (term > 0) {
                    floor = lowest(floor, term);
                }
            }
            onShard = new long[0];
            uuid = null;
        }

        void addAll(IndexWrites other) {
            for (int s = 0; s < other.onShard.length; s++) {
                if (other.onShard[s] > 0) {
                    onShard(other.uuid, other.numberOfShards, s, other.onShard[s]);
                }
            }
            if (other.anyShard != null) {
                anyShard(other.anyShard);
            }
            if (other.floor > 0) {
                floor = lowest(floor, other.floor);
            }
        }

        /** The lowest baseline of writes that may sit on {@code shard} of the index as it is now; 0 when none may. */
        long baseline(int shard, IndexMetadata now) {
            long baseline = predictedBaseline(shard, now);
            if (anyShard != null) {
                baseline = lowest(baseline, shard < anyShard.length && anyShard[shard] > 0 ? anyShard[shard] : 1);
            }
            return baseline;
        }

        /** {@link #baseline} of the writes predicted for {@code shard} (or of no known shard at all), not of the index-wide fence. */
        long predictedBaseline(int shard, IndexMetadata now) {
            long baseline = floor;
            boolean layoutHolds = uuid == null || (uuid.equals(now.uuid()) && numberOfShards == now.numberOfShards());
            if (layoutHolds) {
                if (shard < onShard.length && onShard[shard] > 0) {
                    baseline = lowest(baseline, onShard[shard]);
                }
            } else {
                for (long term : onShard) {
                    if (term > 0) {
                        baseline = lowest(baseline, term);
                    }
                }
            }
            return baseline;
        }

        private static long lowest(long current, long term) {
            return current == 0 || term < current ? term : current;
        }
    }

    private final Map<String, IndexWrites> byIndex = new HashMap<>();

    /**
     * An acknowledged write.
     *
     * @param index       the concrete index the response names
     * @param predicted   where the writer predicted it
     * @param appliedTerm the primary term it was applied under, or -1 when the response does not say
     */
    public void record(String index, PredictedShard predicted, long appliedTerm) {
        IndexWrites writes = byIndex.computeIfAbsent(index, i -> new IndexWrites());
        IndexLayout layout = predicted.layout();
        if (layout != null && layout.index().equals(index)) {
            if (predicted.knowsShard()) {
                writes.onShard(
                        layout.uuid(),
                        layout.numberOfShards(),
                        predicted.shard(),
                        appliedTerm > 0 ? appliedTerm : layout.primaryTerm(predicted.shard()));
            }
            // Every shard, not only the predicted one: an index pipeline added or changed since the
            // layout was read (or one kes cannot read ahead) may have put the write elsewhere. Idle
            // shards are persisted already; a shard whose primary moved fails the fence once.
            writes.anyShard(layout.primaryTermPerShard());
            if (!predicted.knowsShard() && appliedTerm > 0 && !hasTerm(layout.primaryTermPerShard(), appliedTerm)) {
                // Its shard had appliedTerm then, and a term only grows: whichever shard it is, its
                // primary moved since (after the write, where the layout was read after it: a
                // document a pipeline moved to an index kes learned of from that very write).
                writes.floor = IndexWrites.lowest(writes.floor, appliedTerm);
            }
        } else {
            writes.floor = IndexWrites.lowest(writes.floor, appliedTerm > 0 ? appliedTerm : 1);
        }
    }

    private static boolean hasTerm(long[] terms, long term) {
        for (long t : terms) {
            if (t == term) {
                return true;
            }
        }
        return false;
    }

    /** Adds everything {@code other} holds, keeping the lowest baselines. */
    void addAll(AcknowledgedWrites other) {
        other.byIndex.forEach((index, writes) ->
                byIndex.computeIfAbsent(index, i -> new IndexWrites()).addAll(writes));
    }

    /** Indices written since the last {@link #clear()}. */
    public Set<String> indices() {
        return new TreeSet<>(byIndex.keySet());
    }

    /**
     * The lowest baseline term of the writes that may sit on {@code shard} of {@code index}, whose
     * metadata is now {@code now}; 0 when no write may sit there.
     */
    long baseline(String index, int shard, IndexMetadata now) {
        IndexWrites writes = byIndex.get(index);
        return writes == null ? 0 : writes.baseline(shard, now);
    }

    /**
     * The first shard whose current primary term is above the baseline of writes that may sit on
     * it, described for an error message; null when every acknowledged write is safe.
     *
     * @param current index → its metadata now
     */
    public String firstMovedShard(Map<String, IndexMetadata> current) {
        // First the shards writes were predicted for (the likeliest to have lost something), then
        // every shard of the written indices (a write may sit elsewhere than predicted).
        for (boolean predictedOnly : new boolean[] {true, false}) {
            for (String index : indices()) {
                IndexMetadata now = current.get(index);
                if (now == null) {
                    return index + " (the index disappeared)";
                }
                IndexWrites writes = byIndex.get(index);
                long[] terms = now.primaryTerms();
                for (int s = 0; s < now.numberOfShards(); s++) {
                    long baseline = predictedOnly ? writes.predictedBaseline(s, now) : writes.baseline(s, now);
                    if (baseline > 0 && terms[s] > baseline) {
                        return index + "[" + s + "] ("
                                + (predictedOnly
                                        ? "written"
                                        : "a shard of a written index, which may hold writes "
                                                + "predicted for another shard, when its primary term was")
                                + " under primary term " + baseline
                                + " or earlier, now " + terms[s] + ")";
                    }
                }
            }
        }
        return null;
    }

    /** Drops the writes of {@code index} (one that cannot be fenced and must not fail every fence). */
    void forget(String index) {
        byIndex.remove(index);
    }

    public boolean isEmpty() {
        return byIndex.isEmpty();
    }

    public void clear() {
        byIndex.clear();
    }
}
