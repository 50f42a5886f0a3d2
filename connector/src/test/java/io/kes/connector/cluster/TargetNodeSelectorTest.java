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
    private final TargetNodeSelector selector = new TargetNodeSelector(Set.of(CONFIGURED));

    @Test
    void withoutATargetRequestsStayOnTheConfiguredHosts() {
        assertThat(select(CONFIGURED, PRIMARY, OTHER)).containsExactly(CONFIGURED);
    }

    @Test
    void aLivingTargetIsTheOnlyNodeTheRequestMayGoTo() throws Exception {
        List<HttpHost> chosen = selector.sendTo(PRIMARY, () -> select(CONFIGURED, PRIMARY, OTHER));
        assertThat(chosen).containsExactly(PRIMARY);
    }

    @Test
    void aTargetMissingFromTheLivingNodesFallsBackToTheConfiguredHosts() throws Exception {
        List<HttpHost> chosen = selector.sendTo(PRIMARY, () -> select(CONFIGURED, OTHER));
        assertThat(chosen).containsExactly(CONFIGURED);
    }

    @Test
    void theTargetOnlyAppliesWithinSendTo() throws Exception {
        selector.sendTo(PRIMARY, () -> null);
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
        List<Node> nodes = new ArrayList<>();
        for (HttpHost h : hosts) {
            nodes.add(new Node(h));
        }
        selector.select(nodes);
        return nodes.stream().map(Node::getHost).toList();
    }
}
