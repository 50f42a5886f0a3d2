package io.kes.jobs.decode;

import io.kes.connector.RecordOrigin;
import java.io.IOException;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/** A dedicated serializer for {@link KafkaRecord}, so Flink never falls back to Kryo for it. */
public final class KafkaRecordTypeInfoFactory extends TypeInfoFactory<KafkaRecord> {

    @Override
    public TypeInformation<KafkaRecord> createTypeInfo(Type t, Map<String, TypeInformation<?>> genericParameters) {
        return new Info();
    }

    /** Type information: atomic, not a key. */
    public static final class Info extends TypeInformation<KafkaRecord> {
        private static final long serialVersionUID = 1L;

        @Override
        public boolean isBasicType() {
            return false;
        }

        @Override
        public boolean isTupleType() {
            return false;
        }

        @Override
        public int getArity() {
            return 1;
        }

        @Override
        public int getTotalFields() {
            return 1;
        }

        @Override
        public Class<KafkaRecord> getTypeClass() {
            return KafkaRecord.class;
        }

        @Override
        public boolean isKeyType() {
            return false;
        }

        @Override
        public TypeSerializer<KafkaRecord> createSerializer(SerializerConfig config) {
            return Serializer.INSTANCE;
        }

        @Override
        public String toString() {
            return "KafkaRecord";
        }

        @Override
        public boolean equals(Object obj) {
            return obj instanceof Info;
        }

        @Override
        public int hashCode() {
            return Info.class.hashCode();
        }

        @Override
        public boolean canEqual(Object obj) {
            return obj instanceof Info;
        }
    }

    /** Records are immutable (byte arrays are never written to), so copies share them. */
    public static final class Serializer extends TypeSerializerSingleton<KafkaRecord> {
        private static final long serialVersionUID = 1L;
        static final Serializer INSTANCE = new Serializer();

        @Override
        public boolean isImmutableType() {
            return true;
        }

        @Override
        public KafkaRecord createInstance() {
            return null;
        }

        @Override
        public KafkaRecord copy(KafkaRecord from) {
            return from;
        }

        @Override
        public KafkaRecord copy(KafkaRecord from, KafkaRecord reuse) {
            return from;
        }

        @Override
        public int getLength() {
            return -1;
        }

        @Override
        public void serialize(KafkaRecord r, DataOutputView out) throws IOException {
            out.writeUTF(r.topic());
            out.writeInt(r.partition());
            out.writeLong(r.offset());
            out.writeLong(r.timestamp());
            writeBytes(r.key(), out);
            writeBytes(r.value(), out);
            out.writeInt(r.headers().size());
            for (RecordOrigin.Header h : r.headers()) {
                out.writeUTF(h.key());
                writeBytes(h.value(), out);
            }
        }

        @Override
        public KafkaRecord deserialize(DataInputView in) throws IOException {
            String topic = in.readUTF();
            int partition = in.readInt();
            long offset = in.readLong();
            long timestamp = in.readLong();
            byte[] key = readBytes(in);
            byte[] value = readBytes(in);
            RecordOrigin.Header[] headers = new RecordOrigin.Header[in.readInt()];
            for (int i = 0; i < headers.length; i++) {
                headers[i] = new RecordOrigin.Header(in.readUTF(), readBytes(in));
            }
            return new KafkaRecord(topic, partition, offset, timestamp, key, value, List.of(headers));
        }

        @Override
        public KafkaRecord deserialize(KafkaRecord reuse, DataInputView in) throws IOException {
            return deserialize(in);
        }

        @Override
        public void copy(DataInputView source, DataOutputView target) throws IOException {
            serialize(deserialize(source), target);
        }

        private static void writeBytes(byte[] b, DataOutputView out) throws IOException {
            out.writeInt(b == null ? -1 : b.length);
            if (b != null) {
                out.write(b);
            }
        }

        private static byte[] readBytes(DataInputView in) throws IOException {
            int n = in.readInt();
            if (n < 0) {
                return null;
            }
            byte[] b = new byte[n];
            in.readFully(b);
            return b;
        }

        @Override
        public TypeSerializerSnapshot<KafkaRecord> snapshotConfiguration() {
            return new Snapshot();
        }

        /** Single format version so far. */
        public static final class Snapshot extends SimpleTypeSerializerSnapshot<KafkaRecord> {
            public Snapshot() {
                super(() -> INSTANCE);
            }
        }
    }
}
