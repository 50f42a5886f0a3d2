package io.kes.stack;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** The files a {@link KafkaBroker} writes into its folder before each start, overwriting earlier ones. */
final class KafkaBrokerFiles {

    /** Kafka's own loggers at WARN, the rest at INFO, to the console. */
    static final String LOG4J2 = String.join(
            "\n",
            "status = warn",
            "appender.console.type = Console",
            "appender.console.name = console",
            "appender.console.layout.type = PatternLayout",
            "appender.console.layout.pattern = [%d] %p %m (%c)%n",
            "rootLogger.level = INFO",
            "rootLogger.appenderRef.console.ref = console",
            "logger.kafka.name = kafka",
            "logger.kafka.level = WARN",
            "logger.apache.name = org.apache.kafka",
            "logger.apache.level = WARN",
            "");

    private KafkaBrokerFiles() {}

    /**
     * {@code server.properties} of a single KRaft node: broker and controller in one process, a
     * PLAINTEXT listener on {@code port} (and the secured ones when {@code security} is not null),
     * replication factors of 1, no topic created by a client's mistake, nothing deleted by age.
     */
    static String serverProperties(int port, int controllerPort, Path dataDir, KafkaSecurity security) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("process.roles", "broker,controller");
        settings.put("node.id", "1");
        settings.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        String listeners = "PLAINTEXT://127.0.0.1:" + port + (security != null ? "," + security.listeners() : "");
        settings.put("listeners", listeners + ",CONTROLLER://127.0.0.1:" + controllerPort);
        settings.put("advertised.listeners", listeners);
        settings.put("controller.listener.names", "CONTROLLER");
        settings.put("inter.broker.listener.name", "PLAINTEXT");
        settings.put(
                "listener.security.protocol.map",
                "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT" + (security != null ? ",SASL_SSL:SASL_SSL,SSL:SSL" : ""));
        settings.put("log.dirs", dataDir.toString());
        settings.put("num.partitions", "1");
        settings.put("offsets.topic.replication.factor", "1");
        settings.put("offsets.topic.num.partitions", "4");
        settings.put("transaction.state.log.replication.factor", "1");
        settings.put("transaction.state.log.min.isr", "1");
        settings.put("share.coordinator.state.topic.replication.factor", "1");
        settings.put("share.coordinator.state.topic.min.isr", "1");
        settings.put("group.initial.rebalance.delay.ms", "0");
        settings.put("auto.create.topics.enable", "false");
        settings.put("log.retention.hours", "-1");
        if (security != null) {
            settings.putAll(security.brokerSettings());
        }
        StringBuilder out = new StringBuilder("# written by kes-stack; edits are overwritten at each start\n");
        settings.forEach((k, v) -> out.append(k).append('=').append(v).append('\n'));
        return out.toString();
    }
}
