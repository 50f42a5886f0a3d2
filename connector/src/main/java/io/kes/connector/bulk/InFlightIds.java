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

    void holdAll(BulkBody body) {
        for (int i = 0; i < body.itemCount(); i++) {
            String id = body.heldId(i);
            if (id != null) {
                byTarget.computeIfAbsent(body.index(i), t -> new HashMap<>()).merge(id, 1, Integer::sum);
                held++;
            }
        }
    }

    /** Item {@code item} of {@code body} is over (done, refused, or stopping the job). */
    void release(BulkBody body, int item) {
        String id = body.heldId(item);
        if (id != null) {
            release(body.index(item), id);
        }
    }

    /** {@code op}, an item as {@link BulkBody#document} gave it, is over. */
    void release(DocumentOperation op) {
        String id = heldId(op);
        if (id != null) {
            release(op.index(), id);
        }
    }

    private void release(String index, String id) {
        Map<String, Integer> ids = byTarget.get(index);
        Integer count = ids == null ? null : ids.get(id);
        if (count == null) {
            throw new IllegalStateException("released a write that was not in flight: " + index + "/" + id);
        }
        if (count == 1) {
            ids.remove(id);
            if (ids.isEmpty()) {
                byTarget.remove(index);
            }
        } else {
            ids.put(id, count - 1);
        }
        held--;
    }

    void releaseAll(BulkBody body) {
        for (int i = 0; i < body.itemCount(); i++) {
            release(body, i);
        }
    }

    /** Whether a document of {@code body} has a write in flight (the body must wait). */
    boolean anyHeld(BulkBody body) {
        if (held == 0) {
            return false;
        }
        for (int i = 0; i < body.itemCount(); i++) {
            String id = body.heldId(i);
            if (id != null) {
                Map<String, Integer> ids = byTarget.get(body.index(i));
                if (ids != null && ids.containsKey(id)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** {@code op}'s id if it is held while it is in flight (it may repeat), else null. */
    static String heldId(DocumentOperation op) {
        return op.id() != null && !op.idUnique() ? op.id() : null;
    }
}
