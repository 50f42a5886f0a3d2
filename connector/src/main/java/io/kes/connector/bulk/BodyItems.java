package io.kes.connector.bulk;

import io.kes.connector.DocumentOperation;
import io.kes.connector.OpType;
import io.kes.connector.RecordOrigin;
import io.kes.connector.routing.PredictedShard;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * A body's items: where each starts in the body, where it was predicted to land, and what the
 * body remembers of its operation for answers, holds, retries and the failure handler. Kept in
 * arrays, not as an operation object per item: an item lives one to three seconds (buffered,
 * queued, in flight), long enough for young collections to copy and promote whatever it holds,
 * and a writer holds tens of thousands (docs/benchmark.md, "The items of a body in arrays"). A
 * plain item (no routing, pipeline or version, its source in the body) keeps its op type, index,
 * its record's coordinates (and its key, value or headers where it has them) and, if it is held
 * in flight ({@link InFlightIds}), its id: primitives, and references to objects that exist
 * anyway, none made for it. A unique id is not kept: the body reads it back out of its action
 * line when a rare path asks for it ({@link BulkBody#id}). Any other item keeps its whole
 * operation, without its source where the source is in the body. Task thread only.
 */
final class BodyItems {

    private static final OpType[] OP_TYPES = OpType.values();
    /** The op type's ordinal, in the low bits of an item's flags. */
    private static final int OP_TYPE_BITS = 0b11;

    private static final int HAS_ID = 1 << 2;
    private static final int ID_UNIQUE = 1 << 3;

    static {
        if (OP_TYPES.length > OP_TYPE_BITS + 1) {
            throw new AssertionError("an op type's ordinal does not fit its bits: " + OP_TYPES.length);
        }
    }

    /** Where each item's action line starts in the body. */
    private int[] starts;
    /** Where each item was predicted to land; what the checkpoint fence holds its write against. */
    private PredictedShard[] predictions;

    private byte[] flags;
    private String[] indices;
    /** The ids held in flight (not unique); null for the others. */
    private String[] heldIds;

    private String[] topics;
    private int[] partitions;
    private long[] offsets;
    /** An origin with a key, value or headers to replay; null for one that is only coordinates (above). */
    private RecordOrigin[] replayable;
    /** The whole operation (without a source in the body) of an item that is not plain; null for a plain one. */
    private DocumentOperation[] whole;

    private int size;

    /** @param expected how many items the body will likely hold: the arrays grow by copying past it */
    BodyItems(int expected) {
        int n = Math.max(expected, 16);
        starts = new int[n];
        predictions = new PredictedShard[n];
        flags = new byte[n];
        indices = new String[n];
        heldIds = new String[n];
        topics = new String[n];
        partitions = new int[n];
        offsets = new long[n];
        replayable = new RecordOrigin[n];
        whole = new DocumentOperation[n];
    }

    /**
     * Remembers {@code op} as the next item, its action line at {@code start}; {@code sourceInBody}:
     * its source is in the body, so what is kept of it leaves the source behind ({@link BulkBody#document}).
     */
    void add(int start, PredictedShard prediction, DocumentOperation op, boolean sourceInBody) {
        grow();
        starts[size] = start;
        predictions[size] = prediction;
        boolean plain = op.routing() == null
                && op.pipeline() == null
                && op.version() == DocumentOperation.NO_VERSION
                && (sourceInBody || op.source() == null);
        flags[size] = (byte) (op.opType().ordinal() | (op.id() != null ? HAS_ID : 0) | (op.idUnique() ? ID_UNIQUE : 0));
        indices[size] = op.index();
        heldIds[size] = InFlightIds.heldId(op);
        RecordOrigin origin = op.origin();
        topics[size] = origin.topic();
        partitions[size] = origin.partition();
        offsets[size] = origin.offset();
        boolean coordinatesOnly = origin.originalKey() == null
                && origin.originalValue() == null
                && origin.headers().isEmpty();
        replayable[size] = coordinatesOnly ? null : origin;
        whole[size] = plain ? null : sourceInBody ? BulkBody.withoutSource(op) : op;
        size++;
    }

    /** Appends item {@code item} of {@code from}, its action line at {@code start}. */
    void addCopy(BodyItems from, int item, int start) {
        grow();
        starts[size] = start;
        predictions[size] = from.predictions[item];
        flags[size] = from.flags[item];
        indices[size] = from.indices[item];
        heldIds[size] = from.heldIds[item];
        topics[size] = from.topics[item];
        partitions[size] = from.partitions[item];
        offsets[size] = from.offsets[item];
        replayable[size] = from.replayable[item];
        whole[size] = from.whole[item];
        size++;
    }

    private void grow() {
        if (size == starts.length) {
            int n = size * 2;
            starts = Arrays.copyOf(starts, n);
            predictions = Arrays.copyOf(predictions, n);
            flags = Arrays.copyOf(flags, n);
            indices = Arrays.copyOf(indices, n);
            heldIds = Arrays.copyOf(heldIds, n);
            topics = Arrays.copyOf(topics, n);
            partitions = Arrays.copyOf(partitions, n);
            offsets = Arrays.copyOf(offsets, n);
            replayable = Arrays.copyOf(replayable, n);
            whole = Arrays.copyOf(whole, n);
        }
    }

    int size() {
        return size;
    }

    int start(int item) {
        return starts[item];
    }

    PredictedShard prediction(int item) {
        return predictions[item];
    }

    OpType opType(int item) {
        return OP_TYPES[flags[item] & OP_TYPE_BITS];
    }

    String index(int item) {
        return indices[item];
    }

    boolean hasId(int item) {
        return (flags[item] & HAS_ID) != 0;
    }

    /** The id if {@link InFlightIds} holds it (an id that is not unique), else null. */
    String heldId(int item) {
        return heldIds[item];
    }

    /** The item's origin; one that is only coordinates is made again. */
    RecordOrigin origin(int item) {
        if (replayable[item] != null) {
            return replayable[item];
        }
        RecordOrigin none = RecordOrigin.NONE;
        return topics[item] == none.topic() && partitions[item] == none.partition() && offsets[item] == none.offset()
                ? none
                : RecordOrigin.kafka(topics[item], partitions[item], offsets[item]);
    }

    boolean versioned(int item) {
        return whole[item] != null && whole[item].version() != DocumentOperation.NO_VERSION;
    }

    /**
     * The operation as the body keeps it (its source {@link BulkBody#SOURCE_IN_BODY} unless it kept
     * its own); a plain one is made again, with {@code id} (read from the body when not held).
     */
    DocumentOperation operation(int item, String id) {
        if (whole[item] != null) {
            return whole[item];
        }
        OpType opType = opType(item);
        return DocumentOperation.write(opType, indices[item])
                .id(id)
                .source(opType == OpType.DELETE ? null : BulkBody.SOURCE_IN_BODY)
                .origin(origin(item))
                .idUnique((flags[item] & ID_UNIQUE) != 0)
                .build();
    }

    /** The whole operation when it was kept whole (not plain), else null. */
    DocumentOperation whole(int item) {
        return whole[item];
    }

    /** Shards the items were predicted for; 0 when some are not predicted. */
    int distinctShards() {
        PredictedShard first = predictions[0];
        boolean single = first.knowsShard();
        for (int i = 1; single && i < size; i++) {
            single = predictions[i] == first;
        }
        if (single) {
            return 1;
        }
        Set<PredictedShard> shards = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < size; i++) {
            if (!predictions[i].knowsShard()) {
                return 0;
            }
            shards.add(predictions[i]);
        }
        return shards.size();
    }
}
