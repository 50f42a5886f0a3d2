package io.kes.torture;

import io.kes.stack.Engine;
import io.kes.stack.FaultProxy;
import io.kes.stack.KafkaBroker;
import io.kes.stack.SearchCluster;
import io.kes.stack.SearchNode;
import io.kes.stack.StackLayout;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The servers every schedule shares: one search node (Elasticsearch or OpenSearch), or a cluster of
 * several, and one Kafka broker of their own (schedules kill and restart them, so never the shared
 * test servers), and the fault proxy kes talks to instead of the (first) search node. Whatever
 * happens, every node is resumed and everything is stopped when the JVM exits.
 */
final class TortureServers implements AutoCloseable {

    /**
     * A cluster drops a frozen node within about 6 s instead of about 30 (Elasticsearch's and
     * OpenSearch's defaults), and a master publishes a new state without waiting 30 s for the frozen
     * node's acknowledgement, so that a node stalled for seconds loses its primaries to the
     * replicas on the other nodes within a schedule: {@link FaultKind#NODE_STALL}.
     */
    private static final Map<String, String> FAST_FAULT_DETECTION = Map.of(
            "cluster.fault_detection.follower_check.interval", "1s",
            "cluster.fault_detection.follower_check.timeout", "2s",
            "cluster.fault_detection.follower_check.retry_count", "2",
            "cluster.fault_detection.leader_check.interval", "1s",
            "cluster.fault_detection.leader_check.timeout", "2s",
            "cluster.fault_detection.leader_check.retry_count", "2",
            "cluster.publish.timeout", "5s",
            "cluster.follower_lag.timeout", "5s");

    /** The node the proxy fronts: kes's configured host, where the checks read the final state. */
    final SearchNode node;
    /** Every search node, {@link #node} first. */
    final List<SearchNode> nodes;

    final KafkaBroker kafka;
    final FaultProxy proxy;

    private TortureServers(List<SearchNode> nodes, KafkaBroker kafka, FaultProxy proxy) {
        this.node = nodes.get(0);
        this.nodes = List.copyOf(nodes);
        this.kafka = kafka;
        this.proxy = proxy;
    }

    static TortureServers start(Engine engine, String heap, int nodeCount) throws Exception {
        KafkaBroker kafka = KafkaBroker.forTests().start();
        List<SearchNode> started = new CopyOnWriteArrayList<>();
        try {
            if (nodeCount == 1) {
                started.add(engine.builder().heap(heap).build().start());
            } else {
                SearchCluster.start(
                        engine,
                        "kes-torture",
                        nodeCount,
                        StackLayout.fromBuild()
                                .runDir()
                                .resolve("torture-cluster-"
                                        + ProcessHandle.current().pid()),
                        "tn",
                        heap,
                        null,
                        FAST_FAULT_DETECTION,
                        started::add);
            }
        } catch (Exception | Error e) {
            stopAll(started);
            kafka.stop();
            throw e;
        }
        FaultProxy proxy = FaultProxy.start("127.0.0.1", started.get(0).httpPort());
        TortureServers servers = new TortureServers(started, kafka, proxy);
        Runtime.getRuntime().addShutdownHook(new Thread(servers::close, "kes-torture-stop-servers"));
        return servers;
    }

    /** Whether kes writes to several nodes (primary-node routing on, replicas to promote). */
    boolean cluster() {
        return nodes.size() > 1;
    }

    /** Replicas of every index of a schedule: one on a cluster, so that a node's primaries can move; none on one node. */
    int replicas() {
        return cluster() ? 1 : 0;
    }

    @Override
    public synchronized void close() {
        proxy.close();
        stopAll(nodes);
        kafka.stop();
    }

    private static void stopAll(List<SearchNode> nodes) {
        for (SearchNode n : nodes) {
            try {
                if (n.isRunning()) {
                    n.resume(); // a SIGSTOPped node would never stop
                }
            } catch (RuntimeException alreadyGone) {
                // stopping anyway
            }
            n.stop();
        }
    }
}
