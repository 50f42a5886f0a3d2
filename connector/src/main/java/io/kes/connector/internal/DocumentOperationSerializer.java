package io.kes.connector.internal;

import io.kes.connector.DocumentOperation;
import io.kes.connector.OpType;
import io.kes.connector.RecordOrigin;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Compact serializer for {@link DocumentOperation} wherever it crosses the network: the keyed
 * topology's slot exchange (inside {@code RoutedOperation}, every record) and a user's keyBy or
 * rebalance before the sink. Without it Flink would fall back to Kryo for the class: slower,
 * larger, and fragile across versions. Layout: the length of the rest, a flags byte saying which
 * nullable fields follow, then the fields in declaration order; strings as a length and their
 * UTF-8 bytes. The record's key and headers always cross (the dead-letter topic needs them to
 * replay the record); its value only when the source is not the value itself, so an unchanged
 * value crosses once.
 *
 * <p>Every record crosses this serializer, so it avoids per-call and per-character work. The
 * leading length lets the reader take the whole record out of the network buffer in one copy and
 * read its fields from the heap: each copy out of Flink's off-heap buffers pays {@code Unsafe}'s
 * checks, which at one copy a field were 3.6% of a keyed job's CPU (profiled, C1). Strings are
 * UTF-8 (decoded by the JDK's bulk path, not {@code readUTF}'s char loop), and the index and topic
 * names, which repeat from record to record, are encoded once and decoded to the same String while
 * they stay the same. Those caches and the two record buffers make an instance stateful: Flink
 * gets a fresh one per thread through {@link #duplicate()}.
 *
 * <p>The format is only ever read by the same build that wrote it (in-flight records between two
 * operators, not state), so it carries no version. Only an unaligned checkpoint keeps records in
 * flight, and the keyed topology refuses those; a job of one's own that sends operations through an
 * exchange under unaligned checkpoints moves to another kes build through a savepoint (always
 * aligned).
 */
@Internal
public final class DocumentOperationSerializer extends TypeSerializer<DocumentOperation> {

    private static final long serialVersionUID = 2L;

    private static final int HAS_ID = 1;
    private static final int HAS_ROUTING = 1 << 1;
    private static final int HAS_SOURCE = 1 << 2;
    private static final int HAS_TOPIC = 1 << 3;
    private static final int HAS_KEY = 1 << 4;
    private static final int HAS_ORIGINAL_VALUE = 1 << 5;
    private static final int HAS_HEADERS = 1 << 6;
    private static final int HAS_PIPELINE = 1 << 7;
    /** In the op type's byte (the flags' byte is full): an external version follows the pipeline. */
    private static final int VERSIONED = 1 << 6;
    /** In the op type's byte: {@link DocumentOperation#idUnique()}. */
    private static final int ID_UNIQUE = 1 << 5;

    private static final OpType[] OP_TYPES = OpType.values();

    /** A record buffer that grew past this for one large record starts small again after it. */
    private static final int KEPT_RECORD_BYTES = 1 << 20;

    private static final int FIRST_RECORD_BYTES = 1024;

    private final transient RepeatedString indexNames = new RepeatedString();
    private final transient RepeatedString topicNames = new RepeatedString();
    private transient DataOutputSerializer outgoing = new DataOutputSerializer(FIRST_RECORD_BYTES);
    private transient byte[] incoming = new byte[FIRST_RECORD_BYTES];
    private final transient DataInputDeserializer fields = new DataInputDeserializer();

    /** Immutable, so chained operators (the decoder, then the sink's writer) pass it on without a copy. */
    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public TypeSerializer<DocumentOperation> duplicate() {
        return new DocumentOperationSerializer();
    }

    @Override
    public DocumentOperation createInstance() {
        return null;
    }

    @Override
    public DocumentOperation copy(DocumentOperation from) {
        return from; // immutable, byte arrays included: nothing mutates them after the decoder
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
        DataOutputSerializer record = outgoing;
        record.clear();
        writeFields(op, record);
        out.writeInt(record.length());
        out.write(record.getSharedBuffer(), 0, record.length());
        if (record.getSharedBuffer().length > KEPT_RECORD_BYTES) {
            outgoing = new DataOutputSerializer(FIRST_RECORD_BYTES);
        }
    }

    private void writeFields(DocumentOperation op, DataOutputSerializer out) throws IOException {
        RecordOrigin origin = op.origin();
        int flags = (op.id() != null ? HAS_ID : 0)
                | (op.routing() != null ? HAS_ROUTING : 0)
                | (op.source() != null ? HAS_SOURCE : 0)
                | (origin.topic() != null ? HAS_TOPIC : 0)
                | (origin.originalKey() != null ? HAS_KEY : 0)
                | (origin.originalValue() != null ? HAS_ORIGINAL_VALUE : 0)
                | (!origin.headers().isEmpty() ? HAS_HEADERS : 0)
                | (op.pipeline() != null ? HAS_PIPELINE : 0);
        out.writeByte(flags);
        out.writeByte(op.opType().ordinal()
                | (op.version() != DocumentOperation.NO_VERSION ? VERSIONED : 0)
                | (op.idUnique() ? ID_UNIQUE : 0));
        writeBytes(indexNames.encode(op.index()), out);
        if (op.id() != null) {
            writeBytes(op.id().getBytes(StandardCharsets.UTF_8), out);
        }
        if (op.routing() != null) {
            writeBytes(op.routing().getBytes(StandardCharsets.UTF_8), out);
        }
        if (op.source() != null) {
            writeBytes(op.source(), out);
        }
        if (origin.topic() != null) {
            writeBytes(topicNames.encode(origin.topic()), out);
        }
        out.writeInt(origin.partition());
        out.writeLong(origin.offset());
        if (origin.originalKey() != null) {
            writeBytes(origin.originalKey(), out);
        }
        if (origin.originalValue() != null) {
            writeBytes(origin.originalValue(), out);
        }
        if (!origin.headers().isEmpty()) {
            writeHeaders(origin.headers(), out);
        }
        if (op.pipeline() != null) {
            writeBytes(op.pipeline().getBytes(StandardCharsets.UTF_8), out);
        }
        if (op.version() != DocumentOperation.NO_VERSION) {
            out.writeLong(op.version());
        }
    }

    @Override
    public DocumentOperation deserialize(DataInputView in) throws IOException {
        int length = in.readInt();
        if (incoming.length < length) {
            incoming = new byte[Math.max(length, incoming.length * 2)];
        }
        in.readFully(incoming, 0, length);
        fields.setBuffer(incoming, 0, length);
        DocumentOperation op = readFields(fields);
        if (incoming.length > KEPT_RECORD_BYTES) {
            incoming = new byte[FIRST_RECORD_BYTES];
            fields.releaseArrays();
        }
        return op;
    }

    /** The fields of one record, from {@link #incoming} through {@code in}. */
    private DocumentOperation readFields(DataInputDeserializer in) throws IOException {
        int flags = in.readByte();
        int opByte = in.readByte();
        OpType opType = OP_TYPES[opByte & ~(VERSIONED | ID_UNIQUE)];
        String index = indexNames.decode(in);
        String id = (flags & HAS_ID) != 0 ? readString(in) : null;
        String routing = (flags & HAS_ROUTING) != 0 ? readString(in) : null;
        byte[] source = (flags & HAS_SOURCE) != 0 ? readBytes(in) : null;
        String topic = (flags & HAS_TOPIC) != 0 ? topicNames.decode(in) : null;
        int partition = in.readInt();
        long offset = in.readLong();
        byte[] key = (flags & HAS_KEY) != 0 ? readBytes(in) : null;
        byte[] originalValue = (flags & HAS_ORIGINAL_VALUE) != 0 ? readBytes(in) : null;
        List<RecordOrigin.Header> headers = (flags & HAS_HEADERS) != 0 ? readHeaders(in) : List.of();
        RecordOrigin origin =
                topic == null && key == null && originalValue == null && headers.isEmpty() && partition < 0
                        ? RecordOrigin.NONE
                        : new RecordOrigin(topic, partition, offset, key, originalValue, headers);
        String pipeline = (flags & HAS_PIPELINE) != 0 ? readString(in) : null;
        long version = (opByte & VERSIONED) != 0 ? in.readLong() : DocumentOperation.NO_VERSION;
        return DocumentOperation.write(opType, index)
                .id(id)
                .routing(routing)
                .source(source)
                .origin(origin)
                .pipeline(pipeline)
                .version(version)
                .idUnique((opByte & ID_UNIQUE) != 0)
                .build();
    }

    @Override
    public DocumentOperation deserialize(DocumentOperation reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        int length = source.readInt(); // every record stands alone: the names' caches only save work
        target.writeInt(length);
        target.write(source, length);
    }

    private static void writeBytes(byte[] bytes, DataOutputSerializer out) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    /** A count, then each header's name and its value (length -1: null, which Kafka allows). */
    private static void writeHeaders(List<RecordOrigin.Header> headers, DataOutputSerializer out) throws IOException {
        out.writeInt(headers.size());
        for (RecordOrigin.Header h : headers) {
            writeBytes(h.key().getBytes(StandardCharsets.UTF_8), out);
            if (h.value() == null) {
                out.writeInt(-1);
            } else {
                writeBytes(h.value(), out);
            }
        }
    }

    private List<RecordOrigin.Header> readHeaders(DataInputDeserializer in) throws IOException {
        RecordOrigin.Header[] headers = new RecordOrigin.Header[in.readInt()];
        for (int i = 0; i < headers.length; i++) {
            String key = readString(in);
            int length = in.readInt();
            byte[] value = null;
            if (length >= 0) {
                value = new byte[length];
                in.readFully(value);
            }
            headers[i] = new RecordOrigin.Header(key, value);
        }
        return List.of(headers);
    }

    private static byte[] readBytes(DataInputDeserializer in) throws IOException {
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        return bytes;
    }

    /** A length-prefixed string, decoded where it lies in {@link #incoming}. */
    private String readString(DataInputDeserializer in) throws IOException {
        int at = stepOverString(in);
        return new String(incoming, at, in.getPosition() - at, StandardCharsets.UTF_8);
    }

    /**
     * Moves {@code in} past the length-prefixed byte string it reads next; returns where that string
     * starts in {@link #incoming} (it ends at {@code in}'s position). A length past the record's end
     * is an EOFException here, as every other short read is, not an index error later.
     */
    private static int stepOverString(DataInputDeserializer in) throws IOException {
        int length = in.readInt();
        int at = in.getPosition();
        in.skipBytesToRead(length);
        return at;
    }

    /** The last string of one field, encoded and decoded once while it repeats. */
    private final class RepeatedString {
        private String last;
        private byte[] lastBytes;

        byte[] encode(String s) {
            if (!s.equals(last)) {
                last = s;
                lastBytes = s.getBytes(StandardCharsets.UTF_8);
            }
            return lastBytes;
        }

        /** The length-prefixed string {@code in} reads next from {@link #incoming}. */
        String decode(DataInputDeserializer in) throws IOException {
            int at = stepOverString(in);
            int end = in.getPosition();
            if (last == null || !Arrays.equals(incoming, at, end, lastBytes, 0, lastBytes.length)) {
                lastBytes = Arrays.copyOfRange(incoming, at, end);
                last = new String(lastBytes, StandardCharsets.UTF_8);
            }
            return last;
        }
    }

    /** Java deserialization (the job graph ships serializers) skips field initializers; start fresh instead. */
    private Object readResolve() {
        return new DocumentOperationSerializer();
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof DocumentOperationSerializer;
    }

    @Override
    public int hashCode() {
        return DocumentOperationSerializer.class.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<DocumentOperation> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Serializer snapshot; nothing to configure. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<DocumentOperation> {
        public Snapshot() {
            super(DocumentOperationSerializer::new);
        }
    }
}
