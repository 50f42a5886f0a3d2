package io.kes.connector.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.DocumentOperation;
import io.kes.connector.cluster.IndexMetadata;
import io.kes.connector.fence.Epochs;
import io.kes.connector.routing.IndexLayout;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;

class AcknowledgementsTest {

    /** Predictions as a writer's layout made them, terms as the answer gives them, in item order. */
    private static Epochs.Epoch acknowledge(IndexLayout layout, int[] shards, long[] terms) throws Exception {
        BulkBody sent = new BulkBody(1024);
        StringBuilder json = new StringBuilder("{\"items\":[");
        for (int i = 0; i < shards.length; i++) {
            sent.add(DocumentOperation.index("logs", "d" + i, "{}"), layout.shard(shards[i]));
            json.append(i > 0 ? "," : "")
                    .append("{\"index\":{\"_index\":\"logs\",\"_primary_term\":")
                    .append(terms[i])
                    .append(",\"status\":201}}");
        }
        byte[] answer = json.append("]}").toString().getBytes(StandardCharsets.UTF_8);
        BulkResponse response = BulkResponse.parse(answer, answer.length, shards.length);
        WriterRouting routing = new FixedRouting(op -> {
            throw new AssertionError("not asked");
        });
        BulkMetrics metrics = new BulkMetrics(
                new UnregisteredMetricsGroup(),
                new SlotBuffers(true, 1000, 1 << 20, 1 << 24, () -> 0L),
                routing,
                new NodeBudgets(1, false, null));
        Epochs.Epoch epoch = new Epochs().current();
        new Acknowledgements(routing, metrics)
                .record(
                        new BulkInFlight(sent, new Slot("logs", 0), epoch),
                        sent,
                        response,
                        ItemOutcomes.classify(sent, response));
        return epoch;
    }

    private static Map<String, IndexMetadata> now(long... terms) {
        return Map.of(
                "logs",
                new IndexMetadata(
                        "logs",
                        "u1",
                        terms.length,
                        terms.length,
                        1,
                        true,
                        terms,
                        IndexMetadata.DEFAULT_TRANSLOG_SYNC_INTERVAL));
    }

    /**
     * Items are recorded once per run of the same landing, prediction and term; a run that changes
     * the shard or only the term is recorded too, or the fence would vouch for a write under a term
     * it never saw.
     */
    @Test
    void everyChangeOfShardOrTermWithinABulkReachesTheFence() throws Exception {
        IndexLayout layout = IndexLayout.of("logs", "u1", new long[] {9, 9}, null);
        Epochs.Epoch epoch = acknowledge(layout, new int[] {0, 0, 0, 1, 1}, new long[] {5, 5, 4, 2, 2});

        assertThat(epoch.acknowledged.firstMovedShard(now(4, 5)))
                .isEqualTo("logs[1] (written under primary term 2 or earlier, now 5)");
        assertThat(epoch.acknowledged.firstMovedShard(now(5, 2)))
                .isEqualTo("logs[0] (written under primary term 4 or earlier, now 5)");
        assertThat(epoch.acknowledged.firstMovedShard(now(4, 2))).isNull();
    }
}
