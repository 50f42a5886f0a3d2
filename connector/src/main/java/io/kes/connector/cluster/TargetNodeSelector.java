package io.kes.connector.cluster;

import java.util.Collection;
import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.flink.annotation.Internal;
import org.apache.http.HttpHost;
import org.elasticsearch.client.Node;
import org.elasticsearch.client.NodeSelector;

/**
 * Sends one request to one chosen node, everything else to the configured hosts. The low-level
 * client's node selector is client-wide; which node a request goes to is decided when
 * {@code performRequestAsync} is called, on the calling thread (the client picks the nodes to try,
 * in order, before it dispatches), so a target set around that call ({@link #sendTo}) reaches
 * exactly that request.
 *
 * <p>A target that is not among the living nodes (it failed lately) is ignored: the request goes
 * to the configured hosts, as it would without a target.
 */
@Internal
public final class TargetNodeSelector implements NodeSelector {

    private final Set<HttpHost> configured;
    private final ThreadLocal<HttpHost> target = new ThreadLocal<>();

    /** @param configured the configured hosts ({@code elasticsearch.hosts}; a host listed twice counts once) */
    public TargetNodeSelector(Collection<HttpHost> configured) {
        this.configured = Set.copyOf(configured);
    }

    /** Runs {@code send} (which calls the client) with {@code node} as the only node its request may go to. */
    public <T> T sendTo(HttpHost node, Callable<T> send) throws Exception {
        target.set(node);
        try {
            return send.call();
        } finally {
            target.remove();
        }
    }

    @Override
    public void select(Iterable<Node> nodes) {
        HttpHost wanted = target.get();
        boolean present = false;
        if (wanted != null) {
            for (Node n : nodes) {
                present |= n.getHost().equals(wanted);
            }
        }
        for (Iterator<Node> it = nodes.iterator(); it.hasNext(); ) {
            HttpHost host = it.next().getHost();
            if (present ? !host.equals(wanted) : !configured.contains(host)) {
                it.remove();
            }
        }
    }

    @Override
    public String toString() {
        return "kes target node, else " + configured;
    }
}
