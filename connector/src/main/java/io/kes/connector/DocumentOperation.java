package io.kes.connector;

import io.kes.connector.internal.DocumentOperationTypeInfoFactory;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * One write for Elasticsearch: what to do ({@link OpType}), where ({@code index}, optional
 * {@code routing}), to which document ({@code id}), with which JSON {@code source} bytes, and
 * where the record came from (Kafka coordinates, for errors and the dead-letter topic).
 *
 * <p>The source bytes are copied into the bulk body as they are: a record whose JSON is unchanged
 * is never parsed or re-serialized. Immutable: the sink's writer predicts the shard on its own.
 *
 * <p>Flink serializes this type with a dedicated serializer (no Kryo) wherever it crosses the
 * network before the sink.
 */
@TypeInfo(DocumentOperationTypeInfoFactory.class)
public final class DocumentOperation {

    private final OpType opType;
    private final String index;
    private final String id;
    private final String routing;
    private final byte[] source;
    private final RecordOrigin origin;
    private final String pipeline;

    public DocumentOperation(OpType opType, String index, String id, String routing, byte[] source, RecordOrigin origin) {
        this(opType, index, id, routing, source, origin, null);
    }

    private DocumentOperation(OpType opType, String index, String id, String routing, byte[] source, RecordOrigin origin,
                              String pipeline) {
        this.pipeline = pipeline;
        this.opType = Objects.requireNonNull(opType, "opType");
        this.index = Objects.requireNonNull(index, "index");
        this.id = id;
        this.routing = routing;
        this.source = source;
        this.origin = origin == null ? RecordOrigin.NONE : origin;
        if (id == null && opType != OpType.INDEX && opType != OpType.CREATE) {
            throw new IllegalArgumentException(opType + " needs a document id (index " + index + ", from " + this.origin + ")");
        }
        if (source == null && opType != OpType.DELETE) {
            throw new IllegalArgumentException(opType + " needs a source document (index " + index + ", id " + id + ", from " + this.origin + ")");
        }
    }

    public static DocumentOperation index(String index, String id, byte[] source) {
        return new DocumentOperation(OpType.INDEX, index, id, null, source, null);
    }

    public static DocumentOperation delete(String index, String id) {
        return new DocumentOperation(OpType.DELETE, index, id, null, null, null);
    }

    public static DocumentOperation index(String index, String id, String jsonSource) {
        return index(index, id, jsonSource.getBytes(StandardCharsets.UTF_8));
    }

    public OpType opType() {
        return opType;
    }

    public String index() {
        return index;
    }

    /** Null lets Elasticsearch generate one (then replays duplicate). */
    public String id() {
        return id;
    }

    public String routing() {
        return routing;
    }

    public byte[] source() {
        return source;
    }

    public RecordOrigin origin() {
        return origin;
    }

    /** The ingest pipeline the bulk item names, or null (the index's {@code index.default_pipeline} applies). */
    public String pipeline() {
        return pipeline;
    }

    /** This write through the ingest pipeline {@code pipeline} (null: none named). */
    public DocumentOperation withPipeline(String pipeline) {
        return java.util.Objects.equals(pipeline, this.pipeline) ? this
                : new DocumentOperation(opType, index, id, routing, source, origin, pipeline);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof DocumentOperation other)) {
            return false;
        }
        return opType == other.opType && index.equals(other.index) && Objects.equals(id, other.id)
                && Objects.equals(routing, other.routing) && java.util.Arrays.equals(source, other.source)
                && origin.equals(other.origin) && Objects.equals(pipeline, other.pipeline);
    }

    @Override
    public int hashCode() {
        return Objects.hash(opType, index, id, routing);
    }

    @Override
    public String toString() {
        return opType.bulkAction() + " " + index + "/" + id + (routing != null ? " routing=" + routing : "")
                + (pipeline != null ? " pipeline=" + pipeline : "") + " from " + origin;
    }
}
