package io.kes.connector.internal;

import io.kes.connector.DocumentOperation;
import io.kes.connector.OpType;
import io.kes.connector.RecordOrigin;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
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
 * <p>Each record carries its format's version ({@link #FORMAT_VERSION}, a byte after the length),
 * and a record of another version is refused with an error naming both: kes's own exchange is
 * only ever read by the build that wrote it (in-flight records, kept only by an unaligned
 * checkpoint, which the keyed topology refuses), but a job of one's own may keep operations in its
 * state (a window before the sink). Such state written before the version existed (format 0, no
 * version byte) restores through its {@link Snapshot}, which reads it and asks Flink to migrate it.
 * Every length a record carries is checked against the bytes that arrived before anything is
 * allocated for it: a corrupt record is an IOException that says so, not an OutOfMemoryError.
 */
@Internal
public final class DocumentOperationSerializer extends TypeSerializer<DocumentOperation> {

    private static final long serialVersionUID = 3L;

    /** The version of the format {@link #serialize} writes, the byte after each record's length. */
    static final int FORMAT_VERSION = 1;

    /** The format of state written before records carried a version: no version byte. */
    static final int FORMAT_WITHOUT_VERSION = 0;

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
    /** The format {@link #deserialize} reads: {@link #FORMAT_VERSION}, or an old state's ({@link Snapshot}). */
    private final int readFormat;

    public DocumentOperationSerializer() {
        this(FORMAT_VERSION);
    }

    private DocumentOperationSerializer(int readFormat) {
        this.readFormat = readFormat;
    }

    /** Immutable, so chained operators (the decoder, then the sink's writer) pass it on without a copy. */
    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public TypeSerializer<DocumentOperation> duplicate() {
        return new DocumentOperationSerializer(readFormat);
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
        record.writeByte(FORMAT_VERSION);
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
        OperationFields.writeBytes(indexNames.encode(op.index()), out);
        if (op.id() != null) {
            OperationFields.writeBytes(op.id().getBytes(StandardCharsets.UTF_8), out);
        }
        if (op.routing() != null) {
            OperationFields.writeBytes(op.routing().getBytes(StandardCharsets.UTF_8), out);
        }
        if (op.source() != null) {
            OperationFields.writeBytes(op.source(), out);
        }
        if (origin.topic() != null) {
            OperationFields.writeBytes(topicNames.encode(origin.topic()), out);
        }
        out.writeInt(origin.partition());
        out.writeLong(origin.offset());
        if (origin.originalKey() != null) {
            OperationFields.writeBytes(origin.originalKey(), out);
        }
        if (origin.originalValue() != null) {
            OperationFields.writeBytes(origin.originalValue(), out);
        }
        if (!origin.headers().isEmpty()) {
            OperationFields.writeHeaders(origin.headers(), out);
        }
        if (op.pipeline() != null) {
            OperationFields.writeBytes(op.pipeline().getBytes(StandardCharsets.UTF_8), out);
        }
        if (op.version() != DocumentOperation.NO_VERSION) {
            out.writeLong(op.version());
        }
    }

    @Override
    public DocumentOperation deserialize(DataInputView in) throws IOException {
        int length = in.readInt();
        incoming = OperationFields.readRecord(in, length, incoming);
        fields.setBuffer(incoming, 0, length);
        if (readFormat != FORMAT_WITHOUT_VERSION) {
            int version = fields.readUnsignedByte();
            if (version != FORMAT_VERSION) {
                throw new IOException("kes: a DocumentOperation record in exchange format version " + version
                        + " reached a kes build that reads version " + FORMAT_VERSION + ". The job's TaskManagers"
                        + " run different kes builds: run one build everywhere (restore from a savepoint"
                        + " after replacing the jar).");
            }
        }
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
        String id = (flags & HAS_ID) != 0 ? OperationFields.readString(in, incoming) : null;
        String routing = (flags & HAS_ROUTING) != 0 ? OperationFields.readString(in, incoming) : null;
        byte[] source = (flags & HAS_SOURCE) != 0 ? OperationFields.readBytes(in) : null;
        String topic = (flags & HAS_TOPIC) != 0 ? topicNames.decode(in) : null;
        int partition = in.readInt();
        long offset = in.readLong();
        byte[] key = (flags & HAS_KEY) != 0 ? OperationFields.readBytes(in) : null;
        byte[] originalValue = (flags & HAS_ORIGINAL_VALUE) != 0 ? OperationFields.readBytes(in) : null;
        List<RecordOrigin.Header> headers =
                (flags & HAS_HEADERS) != 0 ? OperationFields.readHeaders(in, incoming) : List.of();
        RecordOrigin origin =
                topic == null && key == null && originalValue == null && headers.isEmpty() && partition < 0
                        ? RecordOrigin.NONE
                        : new RecordOrigin(topic, partition, offset, key, originalValue, headers);
        String pipeline = (flags & HAS_PIPELINE) != 0 ? OperationFields.readString(in, incoming) : null;
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
            int at = OperationFields.stepOverString(in);
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
        return new DocumentOperationSerializer(readFormat);
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof DocumentOperationSerializer other && other.readFormat == readFormat;
    }

    @Override
    public int hashCode() {
        return DocumentOperationSerializer.class.hashCode() + readFormat;
    }

    @Override
    public TypeSerializerSnapshot<DocumentOperation> snapshotConfiguration() {
        return new Snapshot();
    }

    /**
     * The serializer's snapshot: the format version it writes. Version 3 of this snapshot (a
     * {@code SimpleTypeSerializerSnapshot} with nothing in it) is the format without a version
     * byte: it restores a serializer that reads that format, and Flink migrates such state to the
     * current one. The class keeps its name: savepoints name it.
     */
    public static final class Snapshot implements TypeSerializerSnapshot<DocumentOperation> {

        /** Versions of this snapshot up to 3 were {@code SimpleTypeSerializerSnapshot}'s, of the format without a version. */
        private static final int WITH_FORMAT = 4;

        private int format = FORMAT_VERSION;

        public Snapshot() {}

        @Override
        public int getCurrentVersion() {
            return WITH_FORMAT;
        }

        @Override
        public void writeSnapshot(DataOutputView out) throws IOException {
            out.writeInt(format);
        }

        @Override
        public void readSnapshot(int version, DataInputView in, ClassLoader classLoader) throws IOException {
            format = version < WITH_FORMAT ? FORMAT_WITHOUT_VERSION : in.readInt();
            if (format != FORMAT_WITHOUT_VERSION && format != FORMAT_VERSION) {
                throw new IOException("kes: state of DocumentOperations in format version " + format
                        + " cannot be read by this kes build, which reads versions " + FORMAT_WITHOUT_VERSION
                        + " to " + FORMAT_VERSION + ": restore it with the kes version that wrote it or a newer one.");
            }
        }

        @Override
        public TypeSerializer<DocumentOperation> restoreSerializer() {
            return new DocumentOperationSerializer(format);
        }

        @Override
        public TypeSerializerSchemaCompatibility<DocumentOperation> resolveSchemaCompatibility(
                TypeSerializerSnapshot<DocumentOperation> old) {
            if (!(old instanceof Snapshot restored)) {
                return TypeSerializerSchemaCompatibility.incompatible();
            }
            return restored.format == format
                    ? TypeSerializerSchemaCompatibility.compatibleAsIs()
                    : TypeSerializerSchemaCompatibility.compatibleAfterMigration();
        }
    }
}
