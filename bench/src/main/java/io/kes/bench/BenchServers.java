package io.kes.bench;

import io.kes.stack.ElasticsearchNode;
import io.kes.stack.KafkaBroker;
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
