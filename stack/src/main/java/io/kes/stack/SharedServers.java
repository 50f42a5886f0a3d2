package io.kes.stack;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One search node per engine and version and one Kafka broker per test JVM, started on first use
 * and stopped when the JVM exits. Starting a node takes 10-30 s, so test classes share them; tests
 * that kill or reconfigure a server start their own instead.
 */
public final class SharedServers {

    private static final Map<String, SearchNode> NODES = new LinkedHashMap<>();
    private static ElasticsearchNode secured;
    private static KafkaBroker kafka;
    private static KafkaBroker securedKafka;
    private static boolean hookInstalled;

    private SharedServers() {}

    /** The default line: 9.x where a JDK 21+ exists, else 8.19.x. */
    public static ElasticsearchNode elasticsearch() {
        return elasticsearch(ElasticsearchNode.defaultVersion(StackLayout.fromBuild()));
    }

    public static ElasticsearchNode elasticsearch(String version) {
        return (ElasticsearchNode) node(Engine.ELASTICSEARCH, version);
    }

    /** The default line: 3.x where a JDK 21+ exists, else 2.19.x. */
    public static OpenSearchNode opensearch() {
        return opensearch(OpenSearchNode.defaultVersion(StackLayout.fromBuild()));
    }

    public static OpenSearchNode opensearch(String version) {
        return (OpenSearchNode) node(Engine.OPENSEARCH, version);
    }

    public static synchronized SearchNode node(Engine engine, String version) {
        installShutdownHook();
        return NODES.computeIfAbsent(
                engine.command() + "-" + version,
                key -> engine.builder().version(version).build().start());
    }

    /**
     * One secured node (HTTPS, users, kes's role and API key: {@link ElasticsearchNode#security()})
     * of the default line per test JVM. Tests that revoke keys or add users make their own names,
     * so classes can share it.
     */
    public static synchronized ElasticsearchNode securedElasticsearch() {
        installShutdownHook();
        if (secured == null) {
            secured = ElasticsearchNode.builder().secured().build().start();
        }
        return secured;
    }

    public static synchronized KafkaBroker kafka() {
        installShutdownHook();
        if (kafka == null) {
            kafka = KafkaBroker.forTests().start();
        }
        return kafka;
    }

    /**
     * A second broker with SASL_SSL (SCRAM-SHA-512) and mTLS listeners ({@link KafkaBroker#security()}),
     * for the tests of authentication; apart from the plain one, so that the others pay nothing for it.
     */
    public static synchronized KafkaBroker securedKafka() {
        installShutdownHook();
        if (securedKafka == null) {
            securedKafka = KafkaBroker.builder().secured().build().start();
        }
        return securedKafka;
    }

    private static void installShutdownHook() {
        if (!hookInstalled) {
            hookInstalled = true;
            Runtime.getRuntime().addShutdownHook(new Thread(SharedServers::stopAll, "kes-stop-shared-servers"));
        }
    }

    private static synchronized void stopAll() {
        NODES.values().forEach(SearchNode::stop);
        if (secured != null) {
            secured.stop();
        }
        if (kafka != null) {
            kafka.stop();
        }
        if (securedKafka != null) {
            securedKafka.stop();
        }
    }
}
