package io.kes.connector.routing;

import io.kes.connector.DocumentOperation;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.api.java.functions.KeySelector;

/**
 * Sends every document of one (index, shard) slot to the same writer subtask, spreading slots
 * evenly: shards of one index go to consecutive subtasks from an offset derived from the index
 * name. Plain keyBy hashing would leave subtasks idle when there are few shards; here, when an
 * index has fewer shards than there are subtasks, each shard is split into sub-slots (by document
 * id) so every subtask gets work, and each bulk still targets one shard because writers buffer by
 * (index, shard). Documents whose shard is unknown are spread by id.
 */
public final class SlotPartitioner implements Partitioner<DocumentOperation> {

    private static final long serialVersionUID = 1L;

    /** The partitioner looks at the whole operation. */
    public static final KeySelector<DocumentOperation, DocumentOperation> KEY = new IdentityKey();

    @Override
    public int partition(DocumentOperation op, int subtasks) {
        int shards = op.numberOfShards();
        int shard = op.shard();
        if (shard < 0 || shards <= 0) {
            return Math.floorMod(idHash(op), subtasks);
        }
        int base = op.index().hashCode();
        if (shards >= subtasks) {
            return Math.floorMod(base + shard, subtasks);
        }
        int subSlots = (subtasks + shards - 1) / shards;
        int sub = Math.floorMod(idHash(op), subSlots);
        return Math.floorMod(base + shard + sub * shards, subtasks);
    }

    private static int idHash(DocumentOperation op) {
        if (op.id() != null) {
            int h = op.id().hashCode();
            return h ^ (h >>> 16);
        }
        return ThreadLocalRandom.current().nextInt();
    }

    private static final class IdentityKey implements KeySelector<DocumentOperation, DocumentOperation> {
        private static final long serialVersionUID = 1L;

        @Override
        public DocumentOperation getKey(DocumentOperation op) {
            return op;
        }
    }
}
