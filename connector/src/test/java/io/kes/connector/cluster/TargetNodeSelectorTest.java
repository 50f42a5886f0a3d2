package io.kes.connector.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.http.HttpHost;
import org.elasticsearch.client.Node;
import org.junit.jupiter.api.Test;

class TargetNodeSelectorTest {

    private static final HttpHost CONFIGURED = new HttpHost("es", 9200, "http");
    private static final HttpHost PRIMARY = new HttpHost("10.0.0.2", 9200, "http");
    private static final HttpHost OTHER = new HttpHost("10.0.0.3", 9200, "http");
    private static final HttpHost SECOND = new HttpHost("es2", 9200, "http");
    private final TargetNodeSelector selector = new TargetNodeSelector(Set.of(CONFIGURED));

    @Test
    void withoutATargetRequestsStayOnTheConfiguredHosts() {
        assertThat(select(CONFIGURED, PRIMARY, OTHER)).containsExactly(CONFIGURED);
    }

    @Test
    void withoutATargetOtherRequestsMayTryEveryConfiguredHost() {
        TargetNodeSelector two = new TargetNodeSelector(List.of(CONFIGURED, SECOND));
        assertThat(select(two, CONFIGURED, SECOND, PRIMARY)).containsExactly(CONFIGURED, SECOND);
    }

    @Test
    void aLivingTargetIsTheOnlyNodeTheRequestMayGoTo() {
        List<List<HttpHost>> selected = new ArrayList<>();
        HttpHost went = selector.sendTo(PRIMARY, () -> selected.add(select(CONFIGURED, PRIMARY, OTHER)));
        assertThat(selected).containsExactly(List.of(PRIMARY));
        assertThat(went).isEqualTo(PRIMARY);
    }

    @Test
    void aTargetMissingFromTheLivingNodesFallsBackToAConfiguredHostAndSaysSo() {
        List<List<HttpHost>> selected = new ArrayList<>();
        HttpHost went = selector.sendTo(PRIMARY, () -> selected.add(select(CONFIGURED, OTHER)));
        assertThat(selected).containsExactly(List.of(CONFIGURED));
        assertThat(went).as("where it really went, not the target").isEqualTo(CONFIGURED);
    }

    /**
     * The REST client sends a request on to the next node it was given when the first times out
     * or answers 502/503/504, before kes hears of it: a copy kes cannot wait for. So a request sent
     * through {@code sendTo} is given one node only, and kes learns which (issue 37).
     */
    @Test
    void withoutATargetARequestSentThroughSendToGoesToOneConfiguredHostInTurn() {
        TargetNodeSelector two = new TargetNodeSelector(List.of(CONFIGURED, SECOND));
        List<List<HttpHost>> selected = new ArrayList<>();
        List<HttpHost> went = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            went.add(two.sendTo(null, () -> selected.add(select(two, CONFIGURED, SECOND, PRIMARY))));
        }
        assertThat(selected).allSatisfy(one -> assertThat(one).hasSize(1));
        assertThat(selected.stream().map(one -> one.get(0)).toList()).isEqualTo(went);
        assertThat(went).containsExactlyInAnyOrder(CONFIGURED, SECOND, CONFIGURED, SECOND);
    }

    /** None living: the client asks again among the dead ones and tries the one left; still one. */
    @Test
    void whenNoSelectedNodeLivesTheRequestStillGoesToOneNode() {
        TargetNodeSelector two = new TargetNodeSelector(List.of(CONFIGURED, SECOND));
        List<List<HttpHost>> selected = new ArrayList<>();
        HttpHost went = two.sendTo(PRIMARY, () -> {
            selected.add(select(two, OTHER)); // living: neither the target nor a configured host
            selected.add(select(two, SECOND, CONFIGURED)); // dead ones
        });
        assertThat(selected.get(0)).isEmpty();
        assertThat(selected.get(1)).hasSize(1);
        assertThat(went).isEqualTo(selected.get(1).get(0));
    }

    @Test
    void theTargetOnlyAppliesWithinSendTo() {
        selector.sendTo(PRIMARY, () -> {});
        assertThat(select(CONFIGURED, PRIMARY)).containsExactly(CONFIGURED);
    }

    @Test
    void aHostConfiguredTwiceIsOneHost() {
        TargetNodeSelector twice = new TargetNodeSelector(List.of(CONFIGURED, CONFIGURED));
        List<Node> nodes = new ArrayList<>(List.of(new Node(CONFIGURED), new Node(PRIMARY)));

        twice.select(nodes);

        assertThat(nodes).extracting(Node::getHost).containsExactly(CONFIGURED);
    }

    private List<HttpHost> select(HttpHost... hosts) {
        return select(selector, hosts);
    }

    private static List<HttpHost> select(TargetNodeSelector selector, HttpHost... hosts) {
        List<Node> nodes = new ArrayList<>();
        for (HttpHost h : hosts) {
            nodes.add(new Node(h));
        }
        selector.select(nodes);
        return nodes.stream().map(Node::getHost).toList();
    }
}
