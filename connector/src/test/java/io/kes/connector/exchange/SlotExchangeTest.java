package io.kes.connector.exchange;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kes.connector.ElasticsearchSinkOptions;
import io.kes.connector.ElasticsearchSinkOptions.Topology;
import io.kes.connector.SinkSettings;
import org.apache.flink.configuration.Configuration;
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
}
