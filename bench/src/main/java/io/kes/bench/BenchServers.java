package io.kes.bench;

import io.kes.stack.ElasticsearchNode;
import io.kes.stack.KafkaBroker;
import io.kes.stack.Ports;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Every server the bench started, so that all of them stop at the end, also on Ctrl-C
 * ({@link #stopAll} runs as a shutdown hook). A paused node is always resumed first.
 */
final class BenchServers {

    private final List<ElasticsearchNode> nodes = new CopyOnWriteArrayList<>();
    private final List<ElasticsearchNode> paused = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> closeFirst = new CopyOnWriteArrayList<>();
    private volatile KafkaBroker broker;

    /** Kafka and one Elasticsearch node to measure against: started here, or the running ones given by {@code --es-url}. */
    record SingleNode(String esUrl, String bootstrap, List<ElasticsearchNode> local) {}

    /** Starts Kafka and one Elasticsearch node (1 GB heap) under {@code options.work}, unless the options name a running stack. */
    SingleNode startSingleNode(BenchOptions options) throws Exception {
        if (options.esUrl != null) {
            Bench.step("Using the running stack: Elasticsearch " + options.esUrl + ", Kafka " + options.kafka);
            return new SingleNode(options.esUrl.replaceAll("/+$", ""), options.kafka, List.of());
        }
        Bench.deleteRecursively(options.work);
        Files.createDirectories(options.work);
        Bench.step("Starting Kafka and one Elasticsearch node (1 GB heap) under " + options.work);
        KafkaBroker kafka =
                KafkaBroker.fixed(options.work.resolve("kafka").toAbsolutePath(), Ports.free(), Ports.free());
        broker(kafka);
        Thread kafkaStart = new Thread(kafka::start);
        kafkaStart.start();
        ElasticsearchNode node = ElasticsearchNode.builder()
                .version(options.esVersion)
                .nodeDir(options.work.resolve("es-single").toAbsolutePath())
                .heap("1g")
                .build();
        node(node);
        node.start();
        kafkaStart.join();
        return new SingleNode(node.url(), kafka.bootstrapServers(), List.of(node));
    }

    KafkaBroker broker() {
        return broker;
    }

    void broker(KafkaBroker broker) {
        this.broker = broker;
    }

    void node(ElasticsearchNode node) {
        nodes.add(node);
    }

    /** Something to close before the servers (the Flink cluster whose jobs use them). */
    void closeFirst(AutoCloseable closeable) {
        closeFirst.add(closeable);
    }

    void pausing(ElasticsearchNode node) {
        paused.add(node);
    }

    void resumed(ElasticsearchNode node) {
        paused.remove(node);
    }

    synchronized void stopBroker() {
        if (broker != null) {
            stopQuietly("Kafka", broker::stop);
            broker = null;
        }
    }

    synchronized void stop(ElasticsearchNode node) {
        node.stop();
        nodes.remove(node);
    }

    /** Resumes any paused node and stops everything; never throws, so one server that will not stop keeps no other running. */
    synchronized void stopAll() {
        for (AutoCloseable c : closeFirst) {
            stopQuietly(c.toString(), c);
        }
        closeFirst.clear();
        for (ElasticsearchNode n : paused) {
            try {
                n.resume();
            } catch (RuntimeException ignored) {
                // best effort
            }
        }
        paused.clear();
        for (ElasticsearchNode n : nodes) {
            stopQuietly(n.toString(), n::stop);
        }
        nodes.clear();
        stopBroker();
    }

    private static void stopQuietly(String what, AutoCloseable server) {
        try {
            server.close();
        } catch (Exception e) {
            System.err.println("stopping " + what + ": " + e);
        }
    }
}
