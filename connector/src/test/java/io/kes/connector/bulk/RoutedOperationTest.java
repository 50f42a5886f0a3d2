package io.kes.connector.bulk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kes.connector.DocumentOperation;
import io.kes.connector.routing.IndexLayout;
import io.kes.connector.routing.ShardPredictor;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
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

        assertThat(back.operation(null)).isEqualTo(op);
        assertThat(back.prediction(predictor)).isSameAs(layout.shard(1));
        assertThat(back.prediction(new ShardPredictor(null)))
                .as("a writer with another table predicts again")
                .isNull();
    }

    private static RoutedOperation crossed(RoutedOperation routed) throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(64);
        new RoutedOperation.Serializer().serialize(routed, out);
        return new RoutedOperation.Serializer().deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
    }

    private static DocumentOperation doc(String id) {
        return DocumentOperation.index("logs", id, "{}".getBytes(StandardCharsets.UTF_8));
    }

    /**
     * To a writer of its JVM a router sends only its own number: the writer takes the operations
     * each router handed over in the order that router sent them (its one channel's order), however
     * the routers' records interleave.
     */
    @Test
    void aHandedOverOperationCrossesAsItsRoutersNumberAndIsTakenInTheOrderItWasSent() throws Exception {
        ShardPredictor predictor = new ShardPredictor(null);
        IndexLayout layout = IndexLayout.of("logs", "u1", new long[] {1, 1}, null);
        SameJvmHandOver handOver = SameJvmHandOver.open(SameJvmHandOver.key("sink-a/0", 3), 2);
        try {
            assertThat(SameJvmHandOver.find(SameJvmHandOver.key("sink-a/0", 3))).isSameAs(handOver);
            assertThat(SameJvmHandOver.find(SameJvmHandOver.key("sink-a/1", 3)))
                    .as("another attempt's writer")
                    .isNull();
            List<RoutedOperation> places = new ArrayList<>();
            for (String[] sent : new String[][] {{"0", "a"}, {"1", "x"}, {"0", "b"}, {"0", "c"}, {"1", "y"}}) {
                int router = Integer.parseInt(sent[0]);
                RoutedOperation routed = new RoutedOperation().set(7, predictor, layout.shard(1), doc(sent[1]));
                assertThat(handOver.offer(router, routed.op)).isTrue();
                routed.handedOverBy(router);
                places.add(crossed(routed));
            }

            List<String> taken = new ArrayList<>();
            for (RoutedOperation place : places) {
                assertThat(place.op).as("the operation did not cross").isNull();
                assertThat(place.prediction(predictor)).isSameAs(layout.shard(1));
                taken.add(place.operation(handOver).id());
            }

            assertThat(taken).containsExactly("a", "x", "b", "c", "y");
            assertThat(handOver.waitingBytes()).isZero();
            assertThatThrownBy(() -> places.get(0).operation(handOver))
                    .as("a place with nothing queued for it")
                    .isInstanceOf(IllegalStateException.class);
        } finally {
            handOver.close();
        }
    }

    /** What waits for one writer is bounded: past it, and after the writer closed, documents cross serialized. */
    @Test
    void aRouterSendsTheDocumentItselfWhenTooMuchWaitsOrTheWriterClosed() {
        SameJvmHandOver handOver = SameJvmHandOver.open(SameJvmHandOver.key("sink-b/0", 0), 1);
        DocumentOperation big = DocumentOperation.index("logs", "big", new byte[64 * 1024]);
        int queued = 0;
        while (handOver.offer(0, big)) {
            queued++;
        }
        assertThat(queued).isEqualTo((int) (SameJvmHandOver.MAX_WAITING_BYTES / (64 * 1024 + 2 * 3 + 128)));
        assertThat(handOver.waitingBytes()).isLessThanOrEqualTo(SameJvmHandOver.MAX_WAITING_BYTES);

        handOver.take(0);
        assertThat(handOver.offer(0, big)).as("room again").isTrue();

        handOver.close();
        assertThat(handOver.offer(0, doc("late"))).isFalse();
        assertThat(SameJvmHandOver.find(SameJvmHandOver.key("sink-b/0", 0))).isNull();
    }
}
