package io.kes.connector.bulk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kes.connector.DocumentOperation;
import io.kes.connector.routing.IndexLayout;
import io.kes.connector.routing.ShardPredictor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class RoutedOperationTest {

    @Test
    void theOperationAndItsRoutersPredictionCrossTheExchange() throws Exception {
        ShardPredictor predictor = new ShardPredictor(null);
        IndexLayout layout = IndexLayout.of("logs", "u1", new long[] {1, 1}, null);
        DocumentOperation op = DocumentOperation.index("logs", "a", "{}".getBytes(StandardCharsets.UTF_8));
        RoutedOperation routed = new RoutedOperation().set(7, predictor, layout.shard(1), op);

        DataOutputSerializer out = new DataOutputSerializer(64);
        new RoutedOperation.Serializer().serialize(routed, out);
        RoutedOperation back =
                new RoutedOperation.Serializer().deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));

        assertThat(back.operation()).isEqualTo(op);
        assertThat(back.prediction(predictor)).isSameAs(layout.shard(1));
        assertThat(back.prediction(new ShardPredictor(null)))
                .as("a writer with another table predicts again")
                .isNull();
    }

    @Test
    void aRecordOfAnotherExchangeFormatIsRefusedBeforeAnyFieldIsRead() throws Exception {
        DocumentOperation op = DocumentOperation.index("logs", "a", "{}".getBytes(StandardCharsets.UTF_8));
        DataOutputSerializer out = new DataOutputSerializer(64);
        ShardPredictor predictor = new ShardPredictor(null);
        IndexLayout layout = IndexLayout.of("logs", "u1", new long[] {1, 1}, null);
        new RoutedOperation.Serializer().serialize(new RoutedOperation().set(7, predictor, layout.shard(0), op), out);
        byte[] record = out.getCopyOfBuffer();
        record[Integer.BYTES]++; // the format version: the byte after the operation's length, the record's first field

        assertThatThrownBy(() -> new RoutedOperation.Serializer().deserialize(new DataInputDeserializer(record)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("exchange format version 2")
                .hasMessageContaining("run one build everywhere");
    }
}
