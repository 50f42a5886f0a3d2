package io.kes.connector.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.http.HttpHost;
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

    private static final HttpHost OLD = new HttpHost("10.0.0.1", 9200, "http");
    private static final HttpHost NEW = new HttpHost("10.0.0.7", 9200, "http");

    @Test
    void aNodeThatCameBackAsAnotherProcessUnderAnotherAddressIsGoneForBulksSentToTheOldOne() {
        NodeRestarts now = NodeRestarts.of(Map.of("n1", "e1-second-start"), Map.of("n1", NEW));
        assertThat(now.gone(new SentTo(OLD, "n1", "e1-first-start"))).isTrue();
    }

    /**
     * What kes knew of the node when it sent the bulk is up to one refresh old: the node may have
     * restarted in between and got the bulk as its new process, where the bulk went.
     */
    @Test
    void aNodeRestartedAtTheAddressTheBulkWentToMayBeTheProcessThatGotIt() {
        NodeRestarts now = NodeRestarts.of(Map.of("n1", "e1-second-start"), Map.of("n1", OLD));
        assertThat(now.gone(new SentTo(OLD, "n1", "e1-first-start"))).isFalse();
    }

    @Test
    void anotherNodeNowPublishingTheAddressMayBeTheOneThatGotTheBulk() {
        NodeRestarts now = NodeRestarts.of(Map.of("n1", "e1-second-start", "n2", "e2"), Map.of("n1", NEW, "n2", OLD));
        assertThat(now.gone(new SentTo(OLD, "n1", "e1-first-start"))).isFalse();
    }

    @Test
    void theSameProcessUnderAnotherAddressOrANodeNotListedOrNotKnownAtSendIsNotGone() {
        NodeRestarts now = NodeRestarts.of(Map.of("n1", "e1"), Map.of("n1", NEW));
        assertThat(now.gone(new SentTo(OLD, "n1", "e1"))).as("the same process").isFalse();
        assertThat(NodeRestarts.of(Map.of(), Map.of()).gone(new SentTo(OLD, "n1", "e1")))
                .as("not listed: frozen or cut off")
                .isFalse();
        assertThat(now.gone(SentTo.address(OLD))).as("no node known at send").isFalse();
        assertThat(NodeRestarts.of(Map.of("n1", "e1-second-start"), Map.of()).gone(new SentTo(OLD, "n1", "e1")))
                .as("its address not read")
                .isFalse();
    }

    /**
     * Issue 66 item 4, the boundary: a node back under a new node id at another address (its data
     * path wiped, a new pod IP) looks, from the cluster, like a frozen or cut-off node that is no
     * longer listed, which may still apply the bulk: not taken for gone, so the wait for its old,
     * silent address runs to {@code retry.max_time} (docs/order-and-durability.md).
     */
    @Test
    void aNodeBackUnderANewIdAtAnotherAddressIsNotTakenForGone() {
        NodeRestarts now = NodeRestarts.of(Map.of("n7", "e7"), Map.of("n7", NEW));
        assertThat(now.gone(new SentTo(OLD, "n1", "e1"))).isFalse();
        assertThat(now.answersFor(new SentTo(OLD, "n1", "e1"), "n7")).isFalse();
    }

    /** Back at the same address under a new id: the process the bulk reached let go of the address, so it ended. */
    @Test
    void theOneNodePublishingTheAddressABulkWentToAnswersForIt() {
        NodeRestarts now = NodeRestarts.of(Map.of("n7", "e7", "n2", "e2"), Map.of("n7", OLD, "n2", NEW));
        assertThat(now.answersFor(new SentTo(OLD, "n1", "e1"), "n7")).isTrue();
    }

    /** A load balancer or proxy picked the node that answered: it says nothing of the node the bulk went to. */
    @Test
    void aNodeThatDoesNotPublishTheAddressOrSharesItDoesNotAnswerForIt() {
        HttpHost balancer = new HttpHost("10.0.0.100", 9200, "http");
        NodeRestarts now = NodeRestarts.of(Map.of("n1", "e1", "n2", "e2"), Map.of("n1", OLD, "n2", NEW));
        assertThat(now.answersFor(new SentTo(balancer, "n1", "e1"), "n2")).isFalse();
        assertThat(now.answersFor(new SentTo(OLD, "n1", "e1"), "n2")).isFalse();
        NodeRestarts shared = NodeRestarts.of(Map.of("n1", "e1", "n2", "e2"), Map.of("n1", balancer, "n2", balancer));
        assertThat(shared.answersFor(new SentTo(balancer, "n1", "e1"), "n2"))
                .as("every node publishes the balancer's address")
                .isFalse();
    }
}
