package io.kes.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NodeCountsTest {

    @Test
    void readsTheIndexCountOfTheNodesOwnStatsPerIndex() throws Exception {
        String body =
                "{\"nodes\":{\"abc\":{\"indices\":{\"indices\":{\"logs\":{\"indexing\":{\"index_total\":1234}}}}}}}";

        assertThat(NodeCounts.indexTotal(body, "logs")).isEqualTo(1234);
    }

    @Test
    void aNodeHoldingNoShardOfTheIndexCountsZero() throws Exception {
        // filter_path leaves nothing of a node without the index: {} (or no nodes at all)
        assertThat(NodeCounts.indexTotal("{}", "logs")).isZero();
        assertThat(NodeCounts.indexTotal("{\"nodes\":{\"abc\":{}}}", "logs")).isZero();
    }
}
