package io.kes.connector.bulk;

import io.kes.connector.DocumentOperation;
import java.util.HashMap;
import java.util.Map;

/**
 * The documents (target name, id) that have a write on its way to Elasticsearch: sent and not yet
 * finished, retries included. A bulk that holds one of them must wait until that write is done:
 * two bulks in flight together are applied in any order (different write threads, a retry after a
 * 429, a resend after a lost response), so a newer value could land before an older one and lose
 * to it, or a retried index could bring a deleted document back. Within one bulk Elasticsearch
 * applies the items of a shard in order, so an id may appear in a bulk several times.
 *
 * <p>Counted per item (an id twice in a bulk is held twice). Documents without an id cannot be
 * overwritten and are not held; nor are those whose id no other write follows
 * ({@link DocumentOperation#idUnique()}, e.g. {@code id: kafka}): nothing to order, and no map
 * work per document. Task thread only.
 */
final class InFlightIds {

    /** target name → id → items in flight. */
    private final Map<String, Map<String, Integer>> byTarget = new HashMap<>();

    private int held;

    void hold(DocumentOperation op) {
        if (held(op)) {
            byTarget.computeIfAbsent(op.index(), t -> new HashMap<>()).merge(op.id(), 1, Integer::sum);
            held++;
        }
    }

    void holdAll(BulkBody body) {
        for (DocumentOperation op : body.operations()) {
            hold(op);
        }
    }

    void release(DocumentOperation op) {
        if (!held(op)) {
            return;
        }
        Map<String, Integer> ids = byTarget.get(op.index());
        Integer count = ids == null ? null : ids.get(op.id());
        if (count == null) {
            throw new IllegalStateException("released a write that was not in flight: " + op);
        }
        if (count == 1) {
            ids.remove(op.id());
            if (ids.isEmpty()) {
                byTarget.remove(op.index());
            }
        } else {
            ids.put(op.id(), count - 1);
        }
        held--;
    }

    void releaseAll(BulkBody body) {
        for (DocumentOperation op : body.operations()) {
            release(op);
        }
    }

    /** Whether a document of {@code body} has a write in flight (the body must wait). */
    boolean anyHeld(BulkBody body) {
        if (held == 0) {
            return false;
        }
        for (DocumentOperation op : body.operations()) {
            if (held(op)) {
                Map<String, Integer> ids = byTarget.get(op.index());
                if (ids != null && ids.containsKey(op.id())) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether {@code op}'s id is held while it is in flight. */
    private static boolean held(DocumentOperation op) {
        return op.id() != null && !op.idUnique();
    }
}
