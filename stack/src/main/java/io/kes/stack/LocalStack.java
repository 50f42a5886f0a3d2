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
        return secureRunning() ? "https://localhost:" + ES_HTTP_PORT : "http://127.0.0.1:" + ES_HTTP_PORT;
    }

    public String kafkaBootstrap() {
        return "127.0.0.1:" + KAFKA_PORT;
    }

    /** Starts whatever is not running yet; idempotent. */
    public void up() throws IOException {
        up(false);
    }

    /**
     * With {@code secure}, Elasticsearch is a secured node (HTTPS, users, kes's role and API key;
     * its own data folder {@code elasticsearch-secure}), and how to connect is printed.
     */
    public void up(boolean secure) throws IOException {
        Files.createDirectories(home);
        if (running(esDir(), "elasticsearch").isPresent() || secureRunning()) {
            System.out.println("Elasticsearch already running at " + elasticsearchUrl()
                    + (secure != secureRunning() ? " (" + (secureRunning() ? "secured" : "not secured") + "; bin/kes local down first to switch)" : ""));
        } else if (secure) {
            requireFree(ES_HTTP_PORT, "Elasticsearch HTTP");
            requireFree(ES_TRANSPORT_PORT, "Elasticsearch transport");
            System.out.println("Starting a secured Elasticsearch on https://localhost:" + ES_HTTP_PORT + " (log: "
                    + secureEsDir().resolve("logs/console.log") + ") ...");
            ElasticsearchNode node = ElasticsearchNode.builder().nodeDir(secureEsDir()).secured()
                    .ports(ES_HTTP_PORT, ES_TRANSPORT_PORT).heap("1g").detach(true).build().start();
            System.out.println("Elasticsearch " + node.version() + " is up at " + node.url());
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
        if (secureRunning()) {
            stop(secureEsDir(), "elasticsearch");
        }
        stop(kafkaDir(), "kafka");
        System.out.println("Local stack stopped (data kept under " + home + "; delete it for a clean start).");
    }

    public boolean status() {
        boolean es = running(esDir(), "elasticsearch").isPresent() || secureRunning();
        boolean kafka = running(kafkaDir(), "kafka").isPresent();
        System.out.println("Elasticsearch: " + (es ? "running at " + elasticsearchUrl() : "stopped"));
        System.out.println("Kafka:         " + (kafka ? "running at " + kafkaBootstrap() : "stopped"));
        System.out.println("Data:          " + home);
        if (es && secureRunning()) {
            printHowToConnect();
        } else if (es) {
            System.out.println("  curl -s '" + elasticsearchUrl() + "/_cat/indices?v'");
        }
        return es && kafka;
    }

    /** URL, CA file, fingerprint, kes's user, password and API key, and the config lines that use them. */
    private void printHowToConnect() {
        NodeSecurity s;
        try {
            s = NodeSecurity.existing(secureEsDir());
        } catch (IOException e) {
            System.out.println("  (cannot read the credentials under " + secureEsDir() + ": " + e.getMessage() + ")");
            return;
        }
        if (s == null) {
            return;
        }
        String url = elasticsearchUrl();
        System.out.println("Secured Elasticsearch (local use only; the credentials are in " + secureEsDir().resolve("kes-security.properties") + "):");
        System.out.println("  URL:         " + url);
        System.out.println("  CA file:     " + s.caFile());
        System.out.println("  fingerprint: " + s.caFingerprint() + " (SHA-256 of the CA certificate)");
        System.out.println("  user:        " + s.kesUser() + "  (role " + NodeSecurity.KES_ROLE + ": cluster " + NodeSecurity.KES_CLUSTER_PRIVILEGES
                + ", indices " + NodeSecurity.KES_INDEX_PRIVILEGES + ")");
        System.out.println("  password:    " + s.kesPassword());
        System.out.println("  API key:     " + s.apiKey().encoded() + "  (id " + s.apiKey().id() + ", same privileges)");
        System.out.println("  superuser:   " + NodeSecurity.ADMIN_USER + " / " + s.adminPassword() + "  (setup only; not for kes)");
        System.out.println("  curl --cacert " + s.caFile() + " -u " + s.kesUser() + ":" + s.kesPassword() + " '" + url + "/_cat/indices?v'");
        System.out.println("Config (mapping.yaml), with the API key:");
        System.out.println("  elasticsearch:");
        System.out.println("    hosts: [" + url + "]");
        System.out.println("    api_key: " + s.apiKey().encoded());
        System.out.println("    tls_ca_file: " + s.caFile() + "        # or tls_fingerprint: " + s.caFingerprint());
        System.out.println("  # or, with the user: username: " + s.kesUser() + " and password: " + s.kesPassword());
    }

    private boolean secureRunning() {
        return running(secureEsDir(), "elasticsearch").isPresent();
    }

    public boolean isUp() {
        return (running(esDir(), "elasticsearch").isPresent() || secureRunning()) && running(kafkaDir(), "kafka").isPresent();
    }

    private Path esDir() {
        return home.resolve("elasticsearch");
    }

    private Path secureEsDir() {
        return home.resolve("elasticsearch-secure");
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
            case "up" -> stack.up(args.length > 1 && "--secure".equals(args[1]));
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
                System.err.println("usage: kes local up [--secure]|down|status|topic NAME [PARTITIONS]");
                System.exit(2);
            }
        }
    }
}
