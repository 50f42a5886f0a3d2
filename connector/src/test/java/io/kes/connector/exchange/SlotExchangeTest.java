package io.kes.connector.exchange;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kes.connector.DocumentOperation;
import io.kes.connector.ElasticsearchSink;
import io.kes.connector.ElasticsearchSinkOptions;
import io.kes.connector.ElasticsearchSinkOptions.Topology;
import io.kes.connector.SinkSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.junit.jupiter.api.Test;

class SlotExchangeTest {

    private static SinkSettings settings(Topology topology) {
        Configuration c = new Configuration();
        c.set(ElasticsearchSinkOptions.HOSTS, java.util.List.of("http://localhost:9200"));
        c.set(ElasticsearchSinkOptions.TOPOLOGY, topology);
        return SinkSettings.from(c);
    }

    @Test
    void autoKeysFromFourWritersUpOrWhenTheClusterSetsTheParallelism() {
        assertThat(SlotExchange.keyed(settings(Topology.AUTO), 2, false)).isFalse();
        assertThat(SlotExchange.keyed(settings(Topology.AUTO), 4, false)).isTrue();
        assertThat(SlotExchange.keyed(settings(Topology.AUTO), -1, false)).isTrue();
        assertThat(SlotExchange.keyed(settings(Topology.KEYED), 2, false)).isTrue();
        assertThat(SlotExchange.keyed(settings(Topology.KEYED), 1, false))
                .as("one writer: nothing to key")
                .isFalse();
        assertThat(SlotExchange.keyed(settings(Topology.CHAINED), 8, false)).isFalse();
    }

    /** An unaligned barrier may overtake records, so a completed checkpoint does not prove an id's old writer wrote them. */
    @Test
    void unalignedCheckpointsChainTheWritersUnderAutoAndRefuseAnExplicitKeyed() {
        assertThat(SlotExchange.keyed(settings(Topology.AUTO), 8, true)).isFalse();
        assertThatThrownBy(() -> SlotExchange.keyed(settings(Topology.KEYED), 8, true))
                .hasMessage(
                        "bulk.topology: keyed needs aligned checkpoints (per-id order across the exchange rests on them), and "
                                + "unaligned checkpoints are enabled: set execution.checkpointing.unaligned.enabled: false, or "
                                + "bulk.topology: chained (or auto, which then chains the writers)");
    }
    /**
     * Unaligned checkpoints set on the job after its graph was shaped (a cluster's or a
     * submission's configuration) are not seen while the graph is built: the router checks again
     * when it opens, with the setting its task really runs with.
     */
    @Test
    void unalignedCheckpointsSetAfterTheGraphWasBuiltAreRefusedWhenTheRouterOpens() {
        Configuration conf = new Configuration();
        conf.setString("restart-strategy.type", "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(2, conf);
        env.enableCheckpointing(60_000);
        ElasticsearchSink sink = ElasticsearchSink.builder()
                .setHosts("http://127.0.0.1:1")
                .setTopology(Topology.KEYED)
                .setRetry(Duration.ofMillis(10), Duration.ofMillis(50), Duration.ofMillis(200))
                .build();
        env.fromSequence(0, 9) // two parallel writers' input: one would need no exchange
                .map(i -> DocumentOperation.index("logs", "doc-" + i, "{}".getBytes(StandardCharsets.UTF_8)))
                .returns(DocumentOperation.class)
                .sinkTo(sink);
        StreamGraph graph = env.getStreamGraph(); // shaped keyed, with aligned checkpoints
        graph.getJobConfiguration().set(CheckpointingOptions.ENABLE_UNALIGNED, true);

        assertThatThrownBy(() -> env.execute(graph))
                .hasStackTraceContaining("keyed by shard slot")
                .hasStackTraceContaining("execution.checkpointing.unaligned.enabled: false");
    }
}
