package io.kes.stack;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * {@code bin/kes local up|down|status}: the same Kafka and Elasticsearch (or, with
 * {@code --engine opensearch}, OpenSearch) the tests use, on the usual ports (Kafka 9092, search
 * 9200), with data under {@code $KES_HOME/local} ({@code .kes/local} in the checkout by default),
 * left running until {@code down}. One search engine at a time: both want port 9200.
 */
public final class LocalStack {

    public static final int KAFKA_PORT = 9092;
    public static final int KAFKA_CONTROLLER_PORT = 9093;
    public static final int ES_HTTP_PORT = 9200;
    public static final int ES_TRANSPORT_PORT = 9300;

    private final Path home;
    private final Engine engine;

    public LocalStack(Path home, Engine engine) {
        this.home = home;
        this.engine = engine;
    }

    public LocalStack(Path home) {
        this(home, Engine.ELASTICSEARCH);
    }

    public static LocalStack fromEnvironment() {
        return fromEnvironment(Engine.ELASTICSEARCH);
    }

    public static LocalStack fromEnvironment(Engine engine) {
        String kesHome = System.getenv().getOrDefault("KES_HOME", ".kes");
        return new LocalStack(Path.of(kesHome).toAbsolutePath().resolve("local"), engine);
    }

    public Engine engine() {
        return engine;
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
        String name = engine.displayName();
        Engine other = engine == Engine.ELASTICSEARCH ? Engine.OPENSEARCH : Engine.ELASTICSEARCH;
        if (running(searchDir(engine), engine.command()).isPresent()) {
            System.out.println(name + " already running at " + elasticsearchUrl());
        } else if (running(searchDir(other), other.command()).isPresent()) {
            throw new IllegalStateException(other.displayName() + " of the local stack runs on port " + ES_HTTP_PORT
                    + ": run bin/kes local down first to switch to " + name);
        } else {
            requireFree(ES_HTTP_PORT, name + " HTTP");
            requireFree(ES_TRANSPORT_PORT, name + " transport");
            System.out.println("Starting " + name + " on " + elasticsearchUrl() + " (log: "
                    + searchDir(engine).resolve("logs/console.log") + ") ...");
            SearchNode node = engine.builder().nodeDir(searchDir(engine))
                    .ports(ES_HTTP_PORT, ES_TRANSPORT_PORT).heap("1g").detach(true).build().start();
            System.out.println(node.displayName() + " is up at " + node.url());
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
        for (Engine e : Engine.values()) {
            if (e == engine || running(searchDir(e), e.command()).isPresent()) {
                stop(searchDir(e), e.command());
            }
        }
        stop(kafkaDir(), "kafka");
        System.out.println("Local stack stopped (data kept under " + home + "; delete it for a clean start).");
    }

    public boolean status() {
        Engine runs = runningEngine();
        boolean es = runs != null;
        boolean kafka = running(kafkaDir(), "kafka").isPresent();
        String name = (runs != null ? runs : engine).displayName() + ":";
        System.out.println(name + " ".repeat(Math.max(1, 15 - name.length())) + (es ? "running at " + elasticsearchUrl() : "stopped"));
        System.out.println("Kafka:         " + (kafka ? "running at " + kafkaBootstrap() : "stopped"));
        System.out.println("Data:          " + home);
        if (es) {
            System.out.println("  curl -s '" + elasticsearchUrl() + "/_cat/indices?v'");
        }
        return es && kafka;
    }

    public boolean isUp() {
        return runningEngine() != null && running(kafkaDir(), "kafka").isPresent();
    }

    /** The search engine of the local stack that runs now, or null. */
    private Engine runningEngine() {
        for (Engine e : Engine.values()) {
            if (running(searchDir(e), e.command()).isPresent()) {
                return e;
            }
        }
        return null;
    }

    private Path searchDir(Engine e) {
        return home.resolve(e.command());
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
        Engine engine = Engine.ELASTICSEARCH;
        boolean usage = !java.util.Set.of("up", "down", "status").contains(command);
        for (int i = 1; i < args.length && !usage; i += 2) {
            if (args[i].equals("--engine") && i + 1 < args.length) {
                try {
                    engine = Engine.parse(args[i + 1]);
                } catch (IllegalArgumentException e) {
                    System.err.println(e.getMessage());
                    usage = true;
                }
            } else {
                usage = true;
            }
        }
        if (usage) {
            System.err.println("usage: kes local up [--engine elasticsearch|opensearch] | down | status");
            System.exit(2);
        }
        LocalStack stack = fromEnvironment(engine);
        switch (command) {
            case "up" -> stack.up();
            case "down" -> stack.down();
            default -> System.exit(stack.status() ? 0 : 3);
        }
    }
}
