package io.kes.connector.cluster;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.annotation.Internal;
import org.apache.http.HttpHost;
import org.elasticsearch.client.Node;
import org.elasticsearch.client.NodeSelector;

/**
 * Sends one request to exactly one node, which kes learns; everything else to the configured
 * hosts. The low-level client's node selector is client-wide; which nodes a request may go to is
 * decided when {@code performRequestAsync} is called, on the calling thread (the client picks the
 * nodes to try, in order, before it dispatches), so a choice made around that call
 * ({@link #sendTo}) reaches exactly that request.
 *
 * <p>Why one node: given several, the client sends a request on to the next one when the first
 * times out, fails to connect or answers 502/503/504, before the caller hears anything. For a bulk
 * that is a second copy while the first may still run on the first node: whichever lands last
 * wins, and kes can neither wait for the first (it never learns of it) nor hold the ids' later
 * writes back. Given one, the client reports the failure and kes retries itself, after
 * {@code AbandonedBulks} has waited for the copy, on the node it really went to.
 *
 * <p>A target that is not among the living nodes (it failed lately) is ignored: the request goes
 * to one configured host, in turn, as it would without a target. When no chosen node lives, the
 * client asks again among the dead ones and tries the one left.
 */
@Internal
public final class TargetNodeSelector implements NodeSelector {

    /** The current {@link #sendTo} call on this thread: what it asked for and what it got. */
    private static final class Choice {
        final HttpHost wanted;
        HttpHost chosen;

        Choice(HttpHost wanted) {
            this.wanted = wanted;
        }
    }

    private final Set<HttpHost> configured;
    private final ThreadLocal<Choice> choice = new ThreadLocal<>();
    private final AtomicInteger turn = new AtomicInteger();

    /** @param configured the configured hosts ({@code elasticsearch.hosts}; a host listed twice counts once) */
    public TargetNodeSelector(Collection<HttpHost> configured) {
        this.configured = Set.copyOf(configured);
    }

    /**
     * Runs {@code send} (which calls the client once) so that its request goes to one node only:
     * {@code node} when it lives, else one configured host. Returns the node it went to (null: the
     * client found none and failed the request without sending it).
     */
    public HttpHost sendTo(HttpHost node, Runnable send) {
        Choice current = new Choice(node);
        choice.set(current);
        try {
            send.run();
            return current.chosen;
        } finally {
            choice.remove();
        }
    }

    @Override
    public void select(Iterable<Node> nodes) {
        Choice current = choice.get();
        HttpHost wanted = current == null ? null : current.wanted;
        boolean present = false;
        List<HttpHost> candidates = new ArrayList<>();
        for (Node n : nodes) {
            present |= n.getHost().equals(wanted);
            if (configured.contains(n.getHost())) {
                candidates.add(n.getHost());
            }
        }
        HttpHost only = null;
        if (current != null) {
            only = present
                    ? wanted
                    : candidates.isEmpty()
                            ? null
                            : candidates.get(Math.floorMod(turn.getAndIncrement(), candidates.size()));
            current.chosen = only;
        }
        for (Iterator<Node> it = nodes.iterator(); it.hasNext(); ) {
            HttpHost host = it.next().getHost();
            boolean keep = current != null ? host.equals(only) : configured.contains(host);
            if (!keep) {
                it.remove();
            }
        }
    }

    @Override
    public String toString() {
        return "kes target node, else " + configured;
    }
}
