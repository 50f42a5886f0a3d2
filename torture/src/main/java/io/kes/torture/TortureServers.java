package io.kes.torture;

import io.kes.stack.Engine;
import io.kes.stack.FaultProxy;
import io.kes.stack.KafkaBroker;
import io.kes.stack.SearchNode;

/**
 * The servers every schedule shares: one search node (Elasticsearch or OpenSearch) and one Kafka broker of their own
 * (schedules kill and restart them, so never the shared test servers), and the fault proxy kes
 * talks to instead of the search node. Whatever happens, the node is resumed and everything is
 * stopped when the JVM exits.
 */
final class TortureServers implements AutoCloseable {

    final SearchNode node;
    final KafkaBroker kafka;
    final FaultProxy proxy;

    private TortureServers(SearchNode node, KafkaBroker kafka, FaultProxy proxy) {
        this.node = node;
        this.kafka = kafka;
        this.proxy = proxy;
    }

    static TortureServers start(Engine engine, String heap) {
        KafkaBroker kafka = KafkaBroker.forTests().start();
        SearchNode node = engine.builder().heap(heap).build().start();
        FaultProxy proxy = FaultProxy.start("127.0.0.1", node.httpPort());
        TortureServers servers = new TortureServers(node, kafka, proxy);
        Runtime.getRuntime().addShutdownHook(new Thread(servers::close, "kes-torture-stop-servers"));
        return servers;
    }

    @Override
    public synchronized void close() {
        proxy.close();
        try {
            if (node.isRunning()) {
                node.resume(); // a SIGSTOPped node would never stop
            }
        } catch (RuntimeException alreadyGone) {
            // stopping anyway
        }
        node.stop();
        kafka.stop();
    }
}
