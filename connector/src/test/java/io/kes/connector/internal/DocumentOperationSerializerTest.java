package io.kes.connector.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kes.connector.DocumentOperation;
import io.kes.connector.OpType;
import io.kes.connector.RecordOrigin;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class DocumentOperationSerializerTest {

    private static DocumentOperation roundTrip(DocumentOperation op) throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(64);
        new DocumentOperationSerializer().serialize(op, out);
        return new DocumentOperationSerializer().deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
    }

    @Test
    void everyFieldSurvivesTheNetwork() throws Exception {
        DocumentOperation op = DocumentOperation.write(OpType.UPSERT, "logs-é")
                .id("id😀")
                .routing("user-7")
                .source("{\"a\":1}".getBytes(StandardCharsets.UTF_8))
                .origin(new RecordOrigin("topic", 3, 1L << 40, new byte[] {1, 2}, new byte[] {3}))
                .build();
        assertThat(roundTrip(op)).isEqualTo(op);
    }

    @Test
    void theRecordsHeadersSurviveTheNetworkInOrderWithRepeatsAndNulls() throws Exception {
        List<RecordOrigin.Header> headers = List.of(
                new RecordOrigin.Header("trace", new byte[] {0, (byte) 0xff}),
                new RecordOrigin.Header("trace", "second".getBytes(StandardCharsets.UTF_8)),
                new RecordOrigin.Header("ünï", null),
                new RecordOrigin.Header("empty", new byte[0]));
        DocumentOperation op = DocumentOperation.write(OpType.INDEX, "logs")
                .id("k")
                .source("{}".getBytes(StandardCharsets.UTF_8))
                .origin(new RecordOrigin("topic", 0, 7, "k".getBytes(StandardCharsets.UTF_8), null, headers))
                .build();
        DocumentOperation back = roundTrip(op);
        assertThat(back).isEqualTo(op);
        assertThat(back.origin().headers()).containsExactlyElementsOf(headers);
        assertThat(back.origin().originalKey()).isEqualTo("k".getBytes(StandardCharsets.UTF_8));
        assertThat(back.origin().originalValue())
                .as("the source is the value; it crosses once")
                .isNull();
    }

    @Test
    void theIngestPipelineSurvivesTheNetwork() throws Exception {
        DocumentOperation op = DocumentOperation.write(OpType.INDEX, "logs")
                .id("p1")
                .source("{}".getBytes(StandardCharsets.UTF_8))
                .pipeline("geoip-é")
                .build();
        DocumentOperation back = roundTrip(op);
        assertThat(back).isEqualTo(op);
        assertThat(back.pipeline()).isEqualTo("geoip-é");
        assertThat(roundTrip(DocumentOperation.index("logs", "p2", "{}")).pipeline())
                .isNull();
    }

    @Test
    void anExternalVersionSurvivesTheNetworkBesideEveryOtherField() throws Exception {
        DocumentOperation indexed = DocumentOperation.write(io.kes.connector.OpType.INDEX, "logs")
                .id("k")
                .source("{}".getBytes())
                .pipeline("p")
                .version(41)
                .build();
        DocumentOperation deleted = DocumentOperation.write(io.kes.connector.OpType.DELETE, "logs")
                .id("k")
                .version(0)
                .build();
        assertThat(roundTrip(indexed)).isEqualTo(indexed);
        assertThat(roundTrip(deleted).version()).isZero();
        assertThat(roundTrip(DocumentOperation.index("logs", "u", "{}")).version())
                .isEqualTo(DocumentOperation.NO_VERSION);
    }

    @Test
    void anIdThatCannotRepeatStaysMarkedAcrossTheNetworkWithAVersion() throws Exception {
        DocumentOperation unique = DocumentOperation.write(OpType.INDEX, "logs")
                .id("t-0-7")
                .idUnique(true)
                .source("{}".getBytes())
                .version(7)
                .build();
        assertThat(roundTrip(unique)).isEqualTo(unique);
        assertThat(roundTrip(unique).idUnique()).isTrue();
        assertThat(roundTrip(unique).opType()).isEqualTo(OpType.INDEX);
        assertThat(roundTrip(DocumentOperation.index("logs", "k", "{}")).idUnique())
                .isFalse();
    }

    @Test
    void absentFieldsStayAbsent() throws Exception {
        DocumentOperation delete = DocumentOperation.delete("logs", "gone");
        DocumentOperation back = roundTrip(delete);
        assertThat(back).isEqualTo(delete);
        assertThat(back.routing()).isNull();
        assertThat(back.source()).isNull();
        assertThat(back.origin()).isEqualTo(RecordOrigin.NONE);
    }

    @Test
    void flinkUsesTheDedicatedSerializerNotKryo() {
        assertThat(TypeInformation.of(DocumentOperation.class).createSerializer(new SerializerConfigImpl()))
                .isInstanceOf(DocumentOperationSerializer.class);
    }

    @Test
    void aStreamOfOperationsKeepsEachOnesIndexTopicAndId() throws Exception {
        // the writer and reader remember the last index and topic; a change must never be missed
        String[] indices = {"logs-a", "logs-a", "logs-b", "logs-a", "logs-é", "logs-é", "x"};
        String[] topics = {"t1", "t1", "t1", "t2", "t2", "t10", "t1"};
        DocumentOperationSerializer writer = new DocumentOperationSerializer();
        DataOutputSerializer out = new DataOutputSerializer(64);
        DocumentOperation[] ops = new DocumentOperation[indices.length];
        for (int i = 0; i < ops.length; i++) {
            ops[i] = DocumentOperation.write(OpType.INDEX, indices[i])
                    .id("id-" + i)
                    .source(("{\"i\":" + i + "}").getBytes(StandardCharsets.UTF_8))
                    .origin(RecordOrigin.kafka(topics[i], i, i))
                    .build();
            writer.serialize(ops[i], out);
        }
        DocumentOperationSerializer reader = new DocumentOperationSerializer();
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        for (DocumentOperation op : ops) {
            assertThat(reader.deserialize(in)).isEqualTo(op);
        }
    }

    @Test
    void anOperationLeavesTheNetworkBufferInOneCopy() throws Exception {
        // each copy out of an off-heap network buffer pays Unsafe's checks (a profiled 3.6% of the
        // keyed job's CPU at ~6 copies a record): one copy, then the fields from the heap
        DocumentOperation op = DocumentOperation.write(OpType.INDEX, "logs")
                .id("id-1")
                .routing("user-7")
                .source("{\"a\":1}".getBytes(StandardCharsets.UTF_8))
                .origin(new RecordOrigin(
                        "topic",
                        3,
                        42,
                        new byte[] {1},
                        new byte[] {2},
                        List.of(new RecordOrigin.Header("h", new byte[] {3}))))
                .pipeline("enrich")
                .build();
        DataOutputSerializer out = new DataOutputSerializer(64);
        new DocumentOperationSerializer().serialize(op, out);
        int[] copies = {0};
        DataInputDeserializer network = new DataInputDeserializer(out.getCopyOfBuffer()) {
            @Override
            public void readFully(byte[] b, int off, int len) throws IOException {
                copies[0]++;
                super.readFully(b, off, len);
            }
        };

        assertThat(new DocumentOperationSerializer().deserialize(network)).isEqualTo(op);
        assertThat(copies[0]).isEqualTo(1);
        assertThat(network.available()).isZero();
    }

    @Test
    void aRecordLargerThanTheBuffersKeptBetweenRecordsCrossesAndSoDoTheSmallOnesAfterIt() throws Exception {
        DocumentOperationSerializer writer = new DocumentOperationSerializer();
        DocumentOperationSerializer reader = new DocumentOperationSerializer();
        DataOutputSerializer out = new DataOutputSerializer(64);
        byte[] large = new byte[3 << 20];
        Arrays.fill(large, (byte) 'x');
        DocumentOperation[] ops = {
            DocumentOperation.index("logs", "1", "{}"),
            DocumentOperation.index("logs", "2", large),
            DocumentOperation.index("logs", "3", "{\"b\":2}")
        };
        for (DocumentOperation op : ops) {
            writer.serialize(op, out);
        }
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        for (DocumentOperation op : ops) {
            assertThat(reader.deserialize(in)).isEqualTo(op);
        }
    }

    @Test
    void aCopiedRecordReadsAsTheOriginal() throws Exception {
        DocumentOperationSerializer serializer = new DocumentOperationSerializer();
        DataOutputSerializer out = new DataOutputSerializer(64);
        DocumentOperation op = DocumentOperation.index("logs", "1", "{}");
        serializer.serialize(op, out);
        DataOutputSerializer copy = new DataOutputSerializer(64);
        serializer.copy(new DataInputDeserializer(out.getCopyOfBuffer()), copy);
        assertThat(copy.getCopyOfBuffer()).isEqualTo(out.getCopyOfBuffer());
        assertThat(new DocumentOperationSerializer().deserialize(new DataInputDeserializer(copy.getCopyOfBuffer())))
                .isEqualTo(op);
    }

    @Test
    void aSerializerShippedWithTheJobGraphWorks() throws Exception {
        DocumentOperationSerializer shipped =
                org.apache.flink.util.InstantiationUtil.clone(new DocumentOperationSerializer());
        DataOutputSerializer out = new DataOutputSerializer(64);
        DocumentOperation op = DocumentOperation.index("logs", "1", "{}");
        shipped.serialize(op, out);
        assertThat(shipped.duplicate().deserialize(new DataInputDeserializer(out.getCopyOfBuffer())))
                .isEqualTo(op);
    }

    /** One record as the serializer writes it: a length, then its fields. */
    private static byte[] written(DocumentOperation op) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        new DocumentOperationSerializer().serialize(op, out);
        return out.getCopyOfBuffer();
    }

    private static DocumentOperation read(byte[] record) throws IOException {
        return new DocumentOperationSerializer().deserialize(new DataInputDeserializer(record));
    }

    /**
     * Issue 66 item 4: the lengths a record carries were trusted, so a corrupt one (or a record of
     * another format) allocated up to 2 GB and ended in an OutOfMemoryError instead of an error
     * that says what happened.
     */
    @Test
    void aRecordLengthPastTheDataThatArrivedIsRefusedWithoutAllocatingIt() {
        DataOutputSerializer out = new DataOutputSerializer(64);
        assertThatCode(() -> {
                    out.writeInt(Integer.MAX_VALUE - 16);
                    out.write(new byte[10]);
                })
                .doesNotThrowAnyException();

        assertThatThrownBy(() -> read(out.getCopyOfBuffer())).isInstanceOf(java.io.EOFException.class);
        assertThatThrownBy(() -> read(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xfe}))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("record length of -2");
    }

    @Test
    void aFieldLengthPastTheRecordsEndIsRefusedNamingTheField() throws Exception {
        byte[] record = written(DocumentOperation.index("logs", "id", "{\"a\":1}"));
        // the source's length: after the length, version, flags, op type, index and id
        int at = 4 + 3 + (4 + 4) + (4 + 2);
        java.nio.ByteBuffer.wrap(record).putInt(at, Integer.MAX_VALUE - 64);

        assertThatThrownBy(() -> read(record))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("a field of " + (Integer.MAX_VALUE - 64) + " bytes")
                .hasMessageContaining("same kes build");
    }

    @Test
    void aHeaderCountPastTheRecordsEndIsRefused() throws Exception {
        DocumentOperation op = DocumentOperation.write(OpType.DELETE, "i")
                .id("k")
                .origin(new RecordOrigin(null, -1, 0, null, null, List.of(new RecordOrigin.Header("h", null))))
                .build();
        byte[] record = written(op);
        // the header count: after the length, version, flags, op type, index, id, partition and offset
        java.nio.ByteBuffer.wrap(record).putInt(4 + 3 + (4 + 1) + (4 + 1) + 4 + 8, Integer.MAX_VALUE);

        assertThatThrownBy(() -> read(record))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(Integer.MAX_VALUE + " headers");
    }

    /** Issue 66 item 4: records carried no format version; another one is refused by name. */
    @Test
    void aRecordCarriesItsFormatVersionAndAnotherOneIsRefusedNamingBoth() throws Exception {
        byte[] record = written(DocumentOperation.index("logs", "id", "{}"));
        assertThat(record[4]).as("the version, right after the length").isEqualTo((byte) 1);

        record[4] = 9;
        assertThatThrownBy(() -> read(record))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("format version 9")
                .hasMessageContaining("reads version 1");
    }

    /**
     * A user's own state of DocumentOperations (a window before the sink) was written in the
     * format without a version: its savepoint's snapshot (the old SimpleTypeSerializerSnapshot,
     * version 3, nothing else) restores a serializer that reads it, and Flink migrates the state.
     */
    @Test
    void aSnapshotOfTheFormatWithoutVersionRestoresAReaderOfItAndAsksForMigration() throws Exception {
        DataOutputSerializer snapshot = new DataOutputSerializer(64);
        snapshot.writeUTF(DocumentOperationSerializer.Snapshot.class.getName());
        snapshot.writeInt(3);
        org.apache.flink.api.common.typeutils.TypeSerializerSnapshot<DocumentOperation> old =
                org.apache.flink.api.common.typeutils.TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(snapshot.getCopyOfBuffer()),
                        getClass().getClassLoader());

        assertThat(new DocumentOperationSerializer()
                        .snapshotConfiguration()
                        .resolveSchemaCompatibility(old)
                        .isCompatibleAfterMigration())
                .isTrue();
        DocumentOperation op = DocumentOperation.index("logs", "id", "{}");
        byte[] current = written(op);
        byte[] withoutVersion = new byte[current.length - 1];
        java.nio.ByteBuffer.wrap(withoutVersion).putInt(current.length - 5);
        System.arraycopy(current, 5, withoutVersion, 4, current.length - 5);
        assertThat(old.restoreSerializer().deserialize(new DataInputDeserializer(withoutVersion)))
                .isEqualTo(op);
    }

    @Test
    void aSnapshotOfThisFormatIsCompatibleAsIs() throws Exception {
        DataOutputSerializer snapshot = new DataOutputSerializer(64);
        org.apache.flink.api.common.typeutils.TypeSerializerSnapshot.writeVersionedSnapshot(
                snapshot, new DocumentOperationSerializer().snapshotConfiguration());
        org.apache.flink.api.common.typeutils.TypeSerializerSnapshot<DocumentOperation> restored =
                org.apache.flink.api.common.typeutils.TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(snapshot.getCopyOfBuffer()),
                        getClass().getClassLoader());

        assertThat(new DocumentOperationSerializer()
                        .snapshotConfiguration()
                        .resolveSchemaCompatibility(restored)
                        .isCompatibleAsIs())
                .isTrue();
        DocumentOperation op = DocumentOperation.index("logs", "id", "{}");
        assertThat(restored.restoreSerializer().deserialize(new DataInputDeserializer(written(op))))
                .isEqualTo(op);
    }
}
