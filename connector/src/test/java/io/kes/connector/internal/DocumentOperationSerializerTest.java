package io.kes.connector.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.DocumentOperation;
import io.kes.connector.OpType;
import io.kes.connector.RecordOrigin;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class DocumentOperationSerializerTest {

    private static DocumentOperation roundTrip(DocumentOperation op) throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(64);
        DocumentOperationSerializer.INSTANCE.serialize(op, out);
        return DocumentOperationSerializer.INSTANCE.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
    }

    @Test
    void everyFieldSurvivesTheNetwork() throws Exception {
        DocumentOperation op = new DocumentOperation(OpType.UPSERT, "logs-é", "id😀", "user-7",
                "{\"a\":1}".getBytes(StandardCharsets.UTF_8),
                new RecordOrigin("topic", 3, 1L << 40, new byte[] {1, 2}, new byte[] {3})).withShard(5, 12);
        assertThat(roundTrip(op)).isEqualTo(op);
    }

    @Test
    void absentFieldsStayAbsent() throws Exception {
        DocumentOperation delete = new DocumentOperation(OpType.DELETE, "logs", "gone", null, null, null);
        DocumentOperation back = roundTrip(delete);
        assertThat(back).isEqualTo(delete);
        assertThat(back.routing()).isNull();
        assertThat(back.source()).isNull();
        assertThat(back.origin()).isEqualTo(RecordOrigin.NONE);
        assertThat(back.shard()).isEqualTo(DocumentOperation.UNKNOWN_SHARD);
    }

    @Test
    void flinkUsesTheDedicatedSerializerNotKryo() {
        assertThat(TypeInformation.of(DocumentOperation.class).createSerializer(new SerializerConfigImpl()))
                .isSameAs(DocumentOperationSerializer.INSTANCE);
    }
}
