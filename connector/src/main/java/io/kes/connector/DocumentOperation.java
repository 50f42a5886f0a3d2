package io.kes.connector;

import io.kes.connector.internal.DocumentOperationTypeInfoFactory;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * One write for Elasticsearch: what to do ({@link OpType}), where ({@code index}, optional
 * {@code routing}), to which document ({@code id}), with which JSON {@code source} bytes, through
 * which ingest {@code pipeline} if one is named, and where the record came from (Kafka coordinates,
 * for errors and the dead-letter topic).
 *
 * <p>The source bytes are copied into the bulk body as they are: a record whose JSON is unchanged
 * is never parsed or re-serialized. Immutable: the sink's writer predicts the shard on its own.
 *
 * <p>Flink serializes this type with a dedicated serializer (no Kryo) wherever it crosses the
 * network before the sink.
 */
@PublicEvolving
@TypeInfo(DocumentOperationTypeInfoFactory.class)
public final class DocumentOperation {

    private final OpType opType;
    private final String index;
    private final String id;
    private final String routing;
    private final byte[] source;
    private final RecordOrigin origin;
    private final String pipeline;
    private final long version;
    private final boolean idUnique;

    /** {@link #version()} of an operation that names none. */
    public static final long NO_VERSION = -1;

    private DocumentOperation(Builder b) {
        this.opType = Objects.requireNonNull(b.opType, "opType");
        this.index = Objects.requireNonNull(b.index, "index");
        this.id = b.id;
        this.routing = b.routing;
        this.source = b.source;
        this.origin = b.origin == null ? RecordOrigin.NONE : b.origin;
        this.pipeline = b.pipeline;
        this.version = b.version;
        this.idUnique = b.idUnique && id != null;
        if (version != NO_VERSION
                && (version < 0 || id == null || (opType != OpType.INDEX && opType != OpType.DELETE))) {
            throw new IllegalArgumentException(
                    "version " + version + " (index " + index + ", id " + id + ", " + opType + "): an "
                            + "external version is a number >= 0 on an index or delete with an id; Elasticsearch versions no create and no "
                            + "bulk update (upsert)");
        }
        if (id == null && opType != OpType.INDEX && opType != OpType.CREATE) {
            throw new IllegalArgumentException(
                    opType + " needs a document id (index " + index + ", from " + this.origin + ")");
        }
        if (source == null && opType != OpType.DELETE) {
            throw new IllegalArgumentException(
                    opType + " needs a source document (index " + index + ", id " + id + ", from " + this.origin + ")");
        }
        if (pipeline != null && opType != OpType.INDEX && opType != OpType.CREATE) {
            throw new IllegalArgumentException(opType + " cannot name an ingest pipeline (" + pipeline + ", index "
                    + index + ", id " + id + "): only index and create run one; a bulk update or delete names none");
        }
    }

    /** Writes {@code source} as document {@code id} (null: Elasticsearch makes one up), replacing it if it exists. */
    public static DocumentOperation index(String index, String id, byte[] source) {
        return write(OpType.INDEX, index).id(id).source(source).build();
    }

    public static DocumentOperation index(String index, String id, String jsonSource) {
        return index(index, id, jsonSource.getBytes(StandardCharsets.UTF_8));
    }

    /** Writes {@code source} only if document {@code id} does not exist yet (a replay is a 409, taken as done). */
    public static DocumentOperation create(String index, String id, byte[] source) {
        return write(OpType.CREATE, index).id(id).source(source).build();
    }

    /** Merges {@code source} into document {@code id}, creating it if it does not exist. */
    public static DocumentOperation upsert(String index, String id, byte[] source) {
        return write(OpType.UPSERT, index).id(id).source(source).build();
    }

    public static DocumentOperation delete(String index, String id) {
        return write(OpType.DELETE, index).id(id).build();
    }

    /** Every other combination: a routing value, the record's origin, an op type chosen at run time. */
    public static Builder write(OpType opType, String index) {
        return new Builder(opType, index);
    }

    /** Builds one {@link DocumentOperation}; checks at {@link #build()} that the op type has what it needs. */
    public static final class Builder {
        private final OpType opType;
        private final String index;
        private String id;
        private String routing;
        private byte[] source;
        private RecordOrigin origin;
        private String pipeline;
        private long version = NO_VERSION;
        private boolean idUnique;

        private Builder(OpType opType, String index) {
            this.opType = opType;
            this.index = index;
        }

        /** Null lets Elasticsearch generate one (index and create only; replays then duplicate). */
        public Builder id(String id) {
            this.id = id;
            return this;
        }

        /** The {@code _routing} value; null routes by id. */
        public Builder routing(String routing) {
            this.routing = routing;
            return this;
        }

        /** The JSON document, copied into the bulk as it is; none for a delete. */
        public Builder source(byte[] source) {
            this.source = source;
            return this;
        }

        /** Where the record came from, for errors and the dead-letter topic. */
        public Builder origin(RecordOrigin origin) {
            this.origin = origin;
            return this;
        }

        /**
         * The ingest pipeline the bulk item names (index and create only); null names none, and
         * the index's {@code index.default_pipeline}, if any, applies.
         */
        public Builder pipeline(String pipeline) {
            this.pipeline = pipeline;
            return this;
        }

        /**
         * An external version (index and delete with an id only): Elasticsearch applies the write
         * only if no write of a higher version reached the document ({@code version_type:
         * external_gte}); one that did answers 409, which kes counts as an accepted replay. With
         * the record's Kafka offset as the version, a replay after a restore never takes a
         * document back to an older value (see docs/order-and-durability.md, "Order", {@code version: kafka-offset}).
         */
        public Builder version(long version) {
            this.version = version;
            return this;
        }

        /**
         * Says that no other write of this id follows within a run (an id made of the record's
         * Kafka coordinates: a record is read once per run; its replay after a restore comes to a
         * new writer). The writer then keeps no per-id order for it: no bookkeeping per document.
         * Wrong for ids that may repeat: a later write could overtake an earlier one.
         */
        public Builder idUnique(boolean unique) {
            this.idUnique = unique;
            return this;
        }

        public DocumentOperation build() {
            return new DocumentOperation(this);
        }
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

    /** The external version ({@code external_gte}), or {@link #NO_VERSION}. */
    public long version() {
        return version;
    }

    /** Whether no other write of this id follows within a run ({@link Builder#idUnique}); false without an id. */
    public boolean idUnique() {
        return idUnique;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof DocumentOperation other)) {
            return false;
        }
        return opType == other.opType
                && index.equals(other.index)
                && Objects.equals(id, other.id)
                && Objects.equals(routing, other.routing)
                && java.util.Arrays.equals(source, other.source)
                && origin.equals(other.origin)
                && Objects.equals(pipeline, other.pipeline)
                && version == other.version
                && idUnique == other.idUnique;
    }

    @Override
    public int hashCode() {
        return Objects.hash(opType, index, id, routing);
    }

    @Override
    public String toString() {
        return opType.bulkAction() + " " + index + "/" + id + (routing != null ? " routing=" + routing : "")
                + (pipeline != null ? " pipeline=" + pipeline : "")
                + (version != NO_VERSION ? " version=" + version : "")
                + " from " + origin;
    }
}
