package io.kes.torture;

import io.kes.stack.ElasticsearchNode;
import io.kes.stack.FaultProxy;
import io.kes.stack.KafkaBroker;

/**
 * The servers every schedule shares: one Elasticsearch node and one Kafka broker of their own
 * (schedules kill and restart them, so never the shared test servers), and the fault proxy kes
 * talks to instead of Elasticsearch. Whatever happens, Elasticsearch is resumed and everything is
 * stopped when the JVM exits.
 */
final class TortureServers implements AutoCloseable {

    final ElasticsearchNode elasticsearch;
    final KafkaBroker kafka;
    final FaultProxy proxy;

    private TortureServers(ElasticsearchNode elasticsearch, KafkaBroker kafka, FaultProxy proxy) {
        this.elasticsearch = elasticsearch;
        this.kafka = kafka;
        this.proxy = proxy;
    }

    static TortureServers start(String esHeap) {
        KafkaBroker kafka = KafkaBroker.forTests().start();
        ElasticsearchNode es = ElasticsearchNode.builder().heap(esHeap).build().start();
        FaultProxy proxy = FaultProxy.start("127.0.0.1", es.httpPort());
        TortureServers servers = new TortureServers(es, kafka, proxy);
        Runtime.getRuntime().addShutdownHook(new Thread(servers::close, "kes-torture-stop-servers"));
        return servers;
    }

    @Override
    public synchronized void close() {
        proxy.close();
        try {
            if (elasticsearch.isRunning()) {
                elasticsearch.resume(); // a SIGSTOPped node would never stop
            }
        } catch (RuntimeException alreadyGone) {
            // stopping anyway
        }
        elasticsearch.stop();
        kafka.stop();
    }
}
