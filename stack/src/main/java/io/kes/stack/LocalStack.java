package io.kes.stack;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * {@code bin/kes local up|down|status}: the same Kafka and Elasticsearch the tests use, on the
 * usual ports (Kafka 9092, Elasticsearch 9200), with data under {@code $KES_HOME/local}
 * ({@code .kes/local} in the checkout by default), left running until {@code down}.
 */
public final class LocalStack {

    public static final int KAFKA_PORT = 9092;
    public static final int KAFKA_CONTROLLER_PORT = 9093;
    public static final int ES_HTTP_PORT = 9200;
    public static final int ES_TRANSPORT_PORT = 9300;

    private final Path home;

    public LocalStack(Path home) {
        this.home = home;
    }

    public static LocalStack fromEnvironment() {
        String kesHome = System.getenv().getOrDefault("KES_HOME", ".kes");
        return new LocalStack(Path.of(kesHome).toAbsolutePath().resolve("local"));
    }

    public String elasticsearchUrl() {
        return "http://127.0.0.1:" + ES_HTTP_PORT;
    }

    public String kafkaBootstrap() {
        return "127.0.0.1:" + KAFKA_PORT;
    }

    /** Starts whatever is not running yet; idempotent. */
    public void up() throws IOException {
        Files.createDirectories(home);
        if (running(esDir(), "elasticsearch").isPresent()) {
            System.out.println("Elasticsearch already running at " + elasticsearchUrl());
        } else {
            requireFree(ES_HTTP_PORT, "Elasticsearch HTTP");
            requireFree(ES_TRANSPORT_PORT, "Elasticsearch transport");
            System.out.println("Starting Elasticsearch on " + elasticsearchUrl() + " (log: " + esDir().resolve("logs/console.log") + ") ...");
            ElasticsearchNode node = ElasticsearchNode.builder().nodeDir(esDir())
                    .ports(ES_HTTP_PORT, ES_TRANSPORT_PORT).heap("1g").detach(true).build().start();
            System.out.println("Elasticsearch " + node.version() + " is up at " + node.url());
        }
        if (running(kafkaDir(), "kafka").isPresent()) {
            System.out.println("Kafka already running at " + kafkaBootstrap());
        } else {
            requireFree(KAFKA_PORT, "Kafka");
            requireFree(KAFKA_CONTROLLER_PORT, "Kafka controller");
            System.out.println("Starting Kafka on " + kafkaBootstrap() + " (log: " + kafkaDir().resolve("kafka.log") + ") ...");
            KafkaBroker.fixed(kafkaDir(), KAFKA_PORT, KAFKA_CONTROLLER_PORT).start();
            System.out.println("Kafka is up at " + kafkaBootstrap());
        }
        status();
    }

    public void down() {
        stop(esDir(), "elasticsearch");
        stop(kafkaDir(), "kafka");
        System.out.println("Local stack stopped (data kept under " + home + "; delete it for a clean start).");
    }

    public boolean status() {
        boolean es = running(esDir(), "elasticsearch").isPresent();
        boolean kafka = running(kafkaDir(), "kafka").isPresent();
        System.out.println("Elasticsearch: " + (es ? "running at " + elasticsearchUrl() : "stopped"));
        System.out.println("Kafka:         " + (kafka ? "running at " + kafkaBootstrap() : "stopped"));
        System.out.println("Data:          " + home);
        if (es) {
            System.out.println("  curl -s '" + elasticsearchUrl() + "/_cat/indices?v'");
        }
        return es && kafka;
    }

    public boolean isUp() {
        return running(esDir(), "elasticsearch").isPresent() && running(kafkaDir(), "kafka").isPresent();
    }

    private Path esDir() {
        return home.resolve("elasticsearch");
    }

    private Path kafkaDir() {
        return home.resolve("kafka");
    }

    private static Optional<ServerProcess> running(Path dir, String name) {
        return ServerProcess.fromPidFile(name, dir.resolve(name + ".pid"), dir.resolve(name + ".log"));
    }

    private static void stop(Path dir, String name) {
        Optional<ServerProcess> process = running(dir, name);
        if (process.isPresent()) {
            System.out.println("Stopping " + name + " (pid " + process.get().pid() + ") ...");
            process.get().stop(Duration.ofSeconds(30));
        } else {
            System.out.println(name + " is not running");
        }
    }

    private static void requireFree(int port, String what) {
        if (Ports.isListening(port)) {
            throw new IllegalStateException("port " + port + " for " + what
                    + " is taken by another process; stop it, or use that server directly");
        }
    }

    public static void main(String[] args) throws IOException {
        String command = args.length > 0 ? args[0] : "status";
        LocalStack stack = fromEnvironment();
        switch (command) {
            case "up" -> stack.up();
            case "down" -> stack.down();
            case "status" -> System.exit(stack.status() ? 0 : 3);
            // The local broker does not create topics on first use (typos should fail), so SQL users create theirs here.
            case "topic" -> {
                if (args.length < 2) {
                    System.err.println("usage: kes local topic NAME [PARTITIONS]");
                    System.exit(2);
                }
                KafkaBroker.createTopicAt(stack.kafkaBootstrap(), args[1], args.length > 2 ? Integer.parseInt(args[2]) : 3, java.util.Map.of());
                System.out.println("Topic " + args[1] + " is there (" + stack.kafkaBootstrap() + ")");
            }
            default -> {
                System.err.println("usage: kes local up|down|status|topic NAME [PARTITIONS]");
                System.exit(2);
            }
        }
    }
}
