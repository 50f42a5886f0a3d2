package io.kes.connector.bulk;

import java.util.HashMap;
import java.util.Map;

/**
 * The highest primary term Elasticsearch reported for acknowledged writes, per (index, shard),
 * since the last checkpoint. The checkpoint fence compares them with the shards' current primary
 * terms: a term that moved means a primary failed over after acknowledging writes that an async
 * translog may not have synced, so the checkpoint must not succeed over them.
 */
public final class AcknowledgedWrites {

    /** index → max primary term per shard; slot 0 of an index with unknown shards is used for all. */
    private final Map<String, long[]> maxTermByIndex = new HashMap<>();

    void record(String index, int shard, long primaryTerm) {
        if (primaryTerm < 0) {
            return;
        }
        int s = Math.max(shard, 0);
        long[] terms = maxTermByIndex.get(index);
        if (terms == null || terms.length <= s) {
            long[] grown = new long[Math.max(s + 1, terms == null ? 1 : terms.length)];
            if (terms != null) {
                System.arraycopy(terms, 0, grown, 0, terms.length);
            }
            terms = grown;
            maxTermByIndex.put(index, terms);
        }
        if (primaryTerm > terms[s]) {
            terms[s] = primaryTerm;
        }
    }

    public Map<String, long[]> snapshot() {
        Map<String, long[]> copy = new HashMap<>();
        maxTermByIndex.forEach((k, v) -> copy.put(k, v.clone()));
        return copy;
    }

    public boolean isEmpty() {
        return maxTermByIndex.isEmpty();
    }

    public void clear() {
        maxTermByIndex.clear();
    }
}
