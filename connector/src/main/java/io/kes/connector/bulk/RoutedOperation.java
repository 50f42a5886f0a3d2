package io.kes.connector.bulk;

import io.kes.connector.DocumentOperation;
import io.kes.connector.internal.AtomicType;
import io.kes.connector.internal.DocumentOperationSerializer;
import io.kes.connector.routing.PredictedShard;
import io.kes.connector.routing.ShardPredictor;
import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * What crosses the slot exchange: an operation, the key of its slot (which picks its writer; read
 * by the partitioner before the record is serialized, so it does not cross), and where its router
 * predicted it, as a {@link ShardPredictor#referenceOf reference} its writer
 * {@link #prediction resolves} instead of predicting again. Mutable: the router reuses one for
 * every record (the exchange serializes each before the next comes).
 */
@Internal
public final class RoutedOperation {

    /** Its type in the job graph, with {@link Serializer}. */
    public static final TypeInformation<RoutedOperation> TYPE =
            new AtomicType<>(RoutedOperation.class, Serializer::new);

    int key;
    long predictor;
    long prediction;
    DocumentOperation op;

    /** Sets every field; returns this. */
    public RoutedOperation set(int key, ShardPredictor predictor, PredictedShard predicted, DocumentOperation op) {
        this.key = key;
        this.predictor = predictor.id();
        this.prediction = predictor.referenceOf(predicted);
        this.op = op;
        return this;
    }

    /** The slot's key; 0 once the record crossed. */
    public int key() {
        return key;
    }

    DocumentOperation operation() {
        return op;
    }

    /** Whether its router knew the index (a prediction crossed with it). */
    boolean cameWithPrediction() {
        return prediction != 0;
    }

    /** The router's prediction, or null when {@code own} cannot resolve it (another JVM's, or a layout no longer held): predict again. */
    PredictedShard prediction(ShardPredictor own) {
        return own.resolve(predictor, prediction);
    }

    /**
     * The operation, then the two references: 16 bytes more than the operation alone. The operation
     * comes first so that its format version (the byte after its length, {@link
     * DocumentOperationSerializer}) is read before anything else: a record of another build is
     * refused with that error instead of being misread.
     */
    public static final class Serializer extends TypeSerializer<RoutedOperation> {
        private static final long serialVersionUID = 1L;

        /** Keeps state of its own (repeated names): one per thread, as {@link #duplicate()} gives. */
        private final DocumentOperationSerializer operations = new DocumentOperationSerializer();

        @Override
        public void serialize(RoutedOperation routed, DataOutputView out) throws IOException {
            operations.serialize(routed.op, out);
            out.writeLong(routed.predictor);
            out.writeLong(routed.prediction);
        }

        @Override
        public RoutedOperation deserialize(DataInputView in) throws IOException {
            RoutedOperation routed = new RoutedOperation();
            routed.op = operations.deserialize(in);
            routed.predictor = in.readLong();
            routed.prediction = in.readLong();
            return routed;
        }

        @Override
        public RoutedOperation deserialize(RoutedOperation reuse, DataInputView in) throws IOException {
            return deserialize(in);
        }

        @Override
        public void copy(DataInputView source, DataOutputView target) throws IOException {
            serialize(deserialize(source), target);
        }

        @Override
        public boolean isImmutableType() {
            return false;
        }

        @Override
        public TypeSerializer<RoutedOperation> duplicate() {
            return new Serializer();
        }

        @Override
        public RoutedOperation createInstance() {
            return new RoutedOperation();
        }

        @Override
        public RoutedOperation copy(RoutedOperation from) {
            RoutedOperation copy = new RoutedOperation();
            copy.key = from.key;
            copy.predictor = from.predictor;
            copy.prediction = from.prediction;
            copy.op = from.op; // immutable
            return copy;
        }

        @Override
        public RoutedOperation copy(RoutedOperation from, RoutedOperation reuse) {
            return copy(from);
        }

        @Override
        public int getLength() {
            return -1;
        }

        /** Java deserialization (the job graph ships serializers) skips field initializers; start fresh instead. */
        private Object readResolve() {
            return new Serializer();
        }

        @Override
        public boolean equals(Object obj) {
            return obj instanceof Serializer;
        }

        @Override
        public int hashCode() {
            return Serializer.class.hashCode();
        }

        @Override
        public TypeSerializerSnapshot<RoutedOperation> snapshotConfiguration() {
            return new Snapshot();
        }
    }

    /** Serializer snapshot; nothing to configure (records in flight, never state). */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<RoutedOperation> {
        public Snapshot() {
            super(Serializer::new);
        }
    }
}
