package io.kes.connector.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeRestartsTest {

    /** What {@code GET _cluster/state/nodes?filter_path=nodes.*.ephemeral_id} answers. */
    private static NodeRestarts listing(String json) throws Exception {
        return NodeRestarts.parse(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void aNodeIdListedWithAnotherEphemeralIdRestartedAndRunsNoneOfItsEarlierBulks() throws Exception {
        NodeRestarts now = listing(
                "{\"nodes\":{\"n1\":{\"ephemeral_id\":\"e1-second-start\"}," + "\"n2\":{\"ephemeral_id\":\"e2\"}}}");
        assertThat(now.restarted("n1", "e1-first-start")).isTrue();
        assertThat(now.ephemeralIdOf("n1")).isEqualTo("e1-second-start");
    }

    @Test
    void theSameProcessListedAgainHasNotRestarted() throws Exception {
        NodeRestarts now = listing("{\"nodes\":{\"n1\":{\"ephemeral_id\":\"e1\"}}}");
        assertThat(now.restarted("n1", "e1")).isFalse();
    }

    /**
     * A frozen or partitioned node is dropped by the master and its shards get new primary terms
     * while it still holds the bulk, which it retries on the new primaries once it rejoins: not
     * being listed says nothing about that process having ended.
     */
    @Test
    void aNodeTheClusterNoLongerListsIsNotTakenForGone() throws Exception {
        assertThat(listing("{\"nodes\":{\"n2\":{\"ephemeral_id\":\"e2\"}}}").restarted("n1", "e1"))
                .isFalse();
        assertThat(listing("{}").restarted("n1", "e1")).isFalse();
        assertThat(NodeRestarts.of(Map.of()).ephemeralIdOf("n1")).isNull();
    }

    @Test
    void theRequestAsksForTheNodesEphemeralIdsOnly() {
        assertThat(NodeRestarts.request().getEndpoint()).isEqualTo("/_cluster/state/nodes");
        assertThat(NodeRestarts.request().getParameters()).containsEntry("filter_path", "nodes.*.ephemeral_id");
    }
}
