package io.kes.connector.internal;

import io.kes.connector.DocumentOperation;
import io.kes.connector.OpType;
import io.kes.connector.RecordOrigin;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Compact serializer for {@link DocumentOperation} on the network between the routing step and
 * the bulk writers. Without it Flink would fall back to Kryo for the class: slower, larger, and
 * fragile across versions. Layout: a flags byte saying which nullable fields follow, then the
 * fields in declaration order.
 */
public final class DocumentOperationSerializer extends TypeSerializerSingleton<DocumentOperation> {

    private static final long serialVersionUID = 1L;
    public static final DocumentOperationSerializer INSTANCE = new DocumentOperationSerializer();

    private static final int HAS_ID = 1;
    private static final int HAS_ROUTING = 1 << 1;
    private static final int HAS_SOURCE = 1 << 2;
    private static final int HAS_TOPIC = 1 << 3;
    private static final int HAS_KEY = 1 << 4;
    private static final int HAS_ORIGINAL_VALUE = 1 << 5;
    private static final OpType[] OP_TYPES = OpType.values();

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public DocumentOperation createInstance() {
        return null;
    }

    @Override
    public DocumentOperation copy(DocumentOperation from) {
        // Fields are never mutated after the routing step; sharing the byte arrays is safe.
        return new DocumentOperation(from.opType(), from.index(), from.id(), from.routing(), from.source(), from.origin())
                .withShard(from.shard(), from.numberOfShards());
    }

    @Override
    public DocumentOperation copy(DocumentOperation from, DocumentOperation reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(DocumentOperation op, DataOutputView out) throws IOException {
        RecordOrigin origin = op.origin();
        int flags = (op.id() != null ? HAS_ID : 0)
                | (op.routing() != null ? HAS_ROUTING : 0)
                | (op.source() != null ? HAS_SOURCE : 0)
                | (origin.topic() != null ? HAS_TOPIC : 0)
                | (origin.originalKey() != null ? HAS_KEY : 0)
                | (origin.originalValue() != null ? HAS_ORIGINAL_VALUE : 0);
        out.writeByte(flags);
        out.writeByte(op.opType().ordinal());
        out.writeUTF(op.index());
        if (op.id() != null) {
            out.writeUTF(op.id());
        }
        if (op.routing() != null) {
            out.writeUTF(op.routing());
        }
        if (op.source() != null) {
            writeBytes(op.source(), out);
        }
        out.writeInt(op.shard());
        out.writeInt(op.numberOfShards());
        if (origin.topic() != null) {
            out.writeUTF(origin.topic());
        }
        out.writeInt(origin.partition());
        out.writeLong(origin.offset());
        if (origin.originalKey() != null) {
            writeBytes(origin.originalKey(), out);
        }
        if (origin.originalValue() != null) {
            writeBytes(origin.originalValue(), out);
        }
    }

    @Override
    public DocumentOperation deserialize(DataInputView in) throws IOException {
        int flags = in.readByte();
        OpType opType = OP_TYPES[in.readByte()];
        String index = in.readUTF();
        String id = (flags & HAS_ID) != 0 ? in.readUTF() : null;
        String routing = (flags & HAS_ROUTING) != 0 ? in.readUTF() : null;
        byte[] source = (flags & HAS_SOURCE) != 0 ? readBytes(in) : null;
        int shard = in.readInt();
        int numberOfShards = in.readInt();
        String topic = (flags & HAS_TOPIC) != 0 ? in.readUTF() : null;
        int partition = in.readInt();
        long offset = in.readLong();
        byte[] key = (flags & HAS_KEY) != 0 ? readBytes(in) : null;
        byte[] originalValue = (flags & HAS_ORIGINAL_VALUE) != 0 ? readBytes(in) : null;
        RecordOrigin origin = topic == null && key == null && originalValue == null && partition < 0
                ? RecordOrigin.NONE
                : new RecordOrigin(topic, partition, offset, key, originalValue);
        return new DocumentOperation(opType, index, id, routing, source, origin).withShard(shard, numberOfShards);
    }

    @Override
    public DocumentOperation deserialize(DocumentOperation reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        serialize(deserialize(source), target);
    }

    private static void writeBytes(byte[] bytes, DataOutputView out) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static byte[] readBytes(DataInputView in) throws IOException {
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        return bytes;
    }

    @Override
    public TypeSerializerSnapshot<DocumentOperation> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Serializer snapshot; the format has a single version so far. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<DocumentOperation> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }
}
