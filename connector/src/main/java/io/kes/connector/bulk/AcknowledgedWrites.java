package io.kes.connector.bulk;

import java.util.HashMap;
import java.util.Map;

/**
 * The primary terms under which Elasticsearch acknowledged writes since the last checkpoint, per
 * concrete (index, shard). The checkpoint fence compares them with the shards' current primary
 * terms: a term that moved means a primary failed over (or restarted) after acknowledging writes
 * that an async translog may never have synced.
 *
 * <p>Why the lowest term is kept, not the highest: a shard that fails over mid-interval
 * acknowledges earlier writes under term 1 and later ones under term 2. The term-1 writes are the
 * ones at risk, and only the lowest term still shows them; the highest (2) would equal the current
 * term and hide the loss.
 */
public final class AcknowledgedWrites {

    static final int UNKNOWN_SHARD = -1;

    /** index → lowest acknowledged primary term per shard (0 = none); slot 0 of {@link #byIndexAnyShard} when the shard is unknown. */
    private final Map<String, long[]> lowestTermByShard = new HashMap<>();
    private final Map<String, Long> byIndexAnyShard = new HashMap<>();

    void record(String index, int shard, long primaryTerm) {
        if (primaryTerm <= 0) {
            return;
        }
        if (shard < 0) {
            byIndexAnyShard.merge(index, primaryTerm, Math::min);
            return;
        }
        long[] terms = lowestTermByShard.get(index);
        if (terms == null || terms.length <= shard) {
            long[] grown = new long[shard + 1];
            if (terms != null) {
                System.arraycopy(terms, 0, grown, 0, terms.length);
            }
            terms = grown;
            lowestTermByShard.put(index, terms);
        }
        if (terms[shard] == 0 || primaryTerm < terms[shard]) {
            terms[shard] = primaryTerm;
        }
    }

    /** Adds everything {@code other} holds, keeping the lowest term per shard. */
    void addAll(AcknowledgedWrites other) {
        other.lowestTermByShard.forEach((index, terms) -> {
            for (int shard = 0; shard < terms.length; shard++) {
                record(index, shard, terms[shard]);
            }
        });
        other.byIndexAnyShard.forEach((index, term) -> record(index, UNKNOWN_SHARD, term));
    }

    /** Whether writes to this shard were acknowledged (writes of unknown shard count for every shard of their index). */
    boolean wrote(String index, int shard) {
        if (byIndexAnyShard.containsKey(index)) {
            return true;
        }
        long[] terms = lowestTermByShard.get(index);
        return terms != null && shard < terms.length && terms[shard] > 0;
    }

    /** Indices written since the last {@link #clear()}. */
    public java.util.Set<String> indices() {
        java.util.Set<String> all = new java.util.TreeSet<>(lowestTermByShard.keySet());
        all.addAll(byIndexAnyShard.keySet());
        return all;
    }

    /**
     * The first shard whose current primary term is above a term it acknowledged writes under,
     * described for an error message; null when every acknowledged write is safe.
     *
     * @param currentTerms index → current primary term per shard
     */
    public String firstMovedShard(Map<String, long[]> currentTerms) {
        for (String index : indices()) {
            long[] current = currentTerms.get(index);
            if (current == null) {
                return index + " (the index disappeared)";
            }
            long[] acked = lowestTermByShard.get(index);
            if (acked != null) {
                for (int s = 0; s < acked.length; s++) {
                    if (acked[s] > 0 && (s >= current.length || current[s] > acked[s])) {
                        return index + "[" + s + "] (acknowledged under primary term " + acked[s] + ", now "
                                + (s < current.length ? current[s] : "gone") + ")";
                    }
                }
            }
            Long anyShard = byIndexAnyShard.get(index);
            if (anyShard != null) {
                for (int s = 0; s < current.length; s++) {
                    if (current[s] > anyShard) {
                        return index + "[" + s + "] (writes of unknown shard acknowledged under primary term " + anyShard
                                + ", now " + current[s] + ")";
                    }
                }
            }
        }
        return null;
    }

    public boolean isEmpty() {
        return lowestTermByShard.isEmpty() && byIndexAnyShard.isEmpty();
    }

    public void clear() {
        lowestTermByShard.clear();
        byIndexAnyShard.clear();
    }
}
