package io.kes.stack;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code bin/kes local up|down|status}: the same Kafka and Elasticsearch (or, with
 * {@code --engine opensearch}, OpenSearch) the tests use, on the usual ports (Kafka 9092, search
 * 9200), with data under {@code $KES_HOME/local} ({@code .kes/local} in the checkout by default),
 * left running until {@code down}. With {@code --secure} Elasticsearch is a secured node (HTTPS,
 * users, kes's role and API key). One search node at a time: they all want port 9200.
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
        if (secure && engine != Engine.ELASTICSEARCH) {
            throw new IllegalArgumentException("--secure runs a secured Elasticsearch; " + engine.displayName()
                    + "'s integ-test-zip has no security plugin: drop --secure or use --engine elasticsearch");
        }
        Files.createDirectories(home);
        SearchKind wanted = new SearchKind(engine, secure);
        SearchKind runs = runningSearch();
        String name = wanted.displayName();
        if (wanted.equals(runs)) {
            System.out.println(name + " already running at " + elasticsearchUrl());
        } else if (runs != null && runs.engine() == engine) {
            System.out.println(engine.displayName() + " already running at " + elasticsearchUrl() + " ("
                    + (runs.secure() ? "secured" : "not secured") + "; bin/kes local down first to switch)");
        } else if (runs != null) {
            throw new IllegalStateException(runs.displayName() + " of the local stack runs on port " + ES_HTTP_PORT
                    + ": run bin/kes local down first to switch to " + name);
        } else {
            requireFree(ES_HTTP_PORT, engine.displayName() + " HTTP");
            requireFree(ES_TRANSPORT_PORT, engine.displayName() + " transport");
            Path dir = searchDir(wanted);
            System.out.println(
                    "Starting " + name + " on " + (secure ? "https://localhost:" + ES_HTTP_PORT : elasticsearchUrl())
                            + " (log: " + dir.resolve("logs/console.log") + ") ...");
            SearchNode.Builder<? extends SearchNode> builder = engine.builder();
            if (secure) {
                builder.secured();
            }
            SearchNode node = builder.nodeDir(dir)
                    .ports(ES_HTTP_PORT, ES_TRANSPORT_PORT)
                    .heap("1g")
                    .detach(true)
                    .build()
                    .start();
            System.out.println(node.displayName() + " is up at " + node.url());
        }
        if (running(kafkaDir(), "kafka").isPresent()) {
            System.out.println("Kafka already running at " + kafkaBootstrap());
        } else {
            requireFree(KAFKA_PORT, "Kafka");
            requireFree(KAFKA_CONTROLLER_PORT, "Kafka controller");
            System.out.println("Starting Kafka on " + kafkaBootstrap() + " (log: "
                    + kafkaDir().resolve("kafka.log") + ") ...");
            KafkaBroker.fixed(kafkaDir(), KAFKA_PORT, KAFKA_CONTROLLER_PORT).start();
            System.out.println("Kafka is up at " + kafkaBootstrap());
        }
        status();
    }

    public void down() {
        for (SearchKind kind : SearchKind.ALL) {
            if (kind.equals(new SearchKind(engine, false))
                    || running(searchDir(kind), kind.engine().command()).isPresent()) {
                stop(searchDir(kind), kind.engine().command());
            }
        }
        stop(kafkaDir(), "kafka");
        System.out.println("Local stack stopped (data kept under " + home + "; delete it for a clean start).");
    }

    public boolean status() {
        SearchKind runs = runningSearch();
        boolean es = runs != null;
        boolean kafka = running(kafkaDir(), "kafka").isPresent();
        String name = (runs != null ? runs.engine() : engine).displayName() + ":";
        System.out.println(name
                + " ".repeat(Math.max(1, 15 - name.length()))
                + (es ? "running at " + elasticsearchUrl() : "stopped"));
        System.out.println("Kafka:         " + (kafka ? "running at " + kafkaBootstrap() : "stopped"));
        System.out.println("Data:          " + home);
        if (es && runs.secure()) {
            printHowToConnect();
        } else if (es) {
            System.out.println("  curl -s '" + elasticsearchUrl() + "/_cat/indices?v'");
        }
        return es && kafka;
    }

    /** URL, CA file, fingerprint, kes's user, password and API key, and the config lines that use them. */
    private void printHowToConnect() {
        Path dir = searchDir(new SearchKind(Engine.ELASTICSEARCH, true));
        NodeSecurity s;
        try {
            s = NodeSecurity.existing(dir);
        } catch (IOException e) {
            System.out.println("  (cannot read the credentials under " + dir + ": " + e.getMessage() + ")");
            return;
        }
        if (s == null) {
            return;
        }
        String url = elasticsearchUrl();
        System.out.println("Secured Elasticsearch (local use only; the credentials are in "
                + dir.resolve("kes-security.properties") + "):");
        System.out.println("  URL:         " + url);
        System.out.println("  CA file:     " + s.caFile());
        System.out.println("  fingerprint: " + s.caFingerprint() + " (SHA-256 of the CA certificate)");
        System.out.println("  user:        " + s.kesUser() + "  (role " + NodeSecurity.KES_ROLE + ": cluster "
                + NodeSecurity.KES_CLUSTER_PRIVILEGES + ", indices " + NodeSecurity.KES_INDEX_PRIVILEGES + ")");
        System.out.println("  password:    " + s.kesPassword());
        System.out.println(
                "  API key:     " + s.apiKey().encoded() + "  (id " + s.apiKey().id() + ", same privileges)");
        System.out.println("  superuser:   " + NodeSecurity.ADMIN_USER + " / " + s.adminPassword()
                + "  (setup only; not for kes)");
        System.out.println("  curl --cacert " + s.caFile() + " -u " + s.kesUser() + ":" + s.kesPassword() + " '" + url
                + "/_cat/indices?v'");
        System.out.println("Config (mapping.yaml), with the API key:");
        System.out.println("  elasticsearch:");
        System.out.println("    hosts: [" + url + "]");
        System.out.println("    api_key: " + s.apiKey().encoded());
        System.out.println("    tls_ca_file: " + s.caFile() + "        # or tls_fingerprint: " + s.caFingerprint());
        System.out.println("  # or, with the user: username: " + s.kesUser() + " and password: " + s.kesPassword());
    }

    private boolean secureRunning() {
        SearchKind runs = runningSearch();
        return runs != null && runs.secure();
    }

    public boolean isUp() {
        return runningSearch() != null && running(kafkaDir(), "kafka").isPresent();
    }

    /**
     * A search node the local stack can run: each keeps its data in its own folder, and only one
     * runs at a time.
     */
    private record SearchKind(Engine engine, boolean secure) {
        static final List<SearchKind> ALL = List.of(
                new SearchKind(Engine.ELASTICSEARCH, false),
                new SearchKind(Engine.ELASTICSEARCH, true),
                new SearchKind(Engine.OPENSEARCH, false));

        String displayName() {
            return (secure ? "a secured " : "") + engine.displayName();
        }
    }

    /** The search node of the local stack that runs now, or null. */
    private SearchKind runningSearch() {
        for (SearchKind kind : SearchKind.ALL) {
            if (running(searchDir(kind), kind.engine().command()).isPresent()) {
                return kind;
            }
        }
        return null;
    }

    /** {@code elasticsearch}, {@code elasticsearch-secure} or {@code opensearch}. */
    private Path searchDir(SearchKind kind) {
        return home.resolve(kind.engine().command() + (kind.secure() ? "-secure" : ""));
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

    private static final String USAGE =
            "usage: kes local up [--secure] [--engine elasticsearch|opensearch] | down | status"
                    + " | topic NAME [PARTITIONS]";

    public static void main(String[] args) throws IOException {
        String command = args.length > 0 ? args[0] : "status";
        if (command.equals("topic")) {
            // The local broker does not create topics on first use (typos should fail), so SQL users create theirs
            // here.
            if (args.length < 2 || args.length > 3) {
                System.err.println("usage: kes local topic NAME [PARTITIONS]");
                System.exit(2);
            }
            LocalStack stack = fromEnvironment();
            KafkaBroker.createTopicAt(
                    stack.kafkaBootstrap(), args[1], args.length > 2 ? Integer.parseInt(args[2]) : 3, Map.of());
            System.out.println("Topic " + args[1] + " is there (" + stack.kafkaBootstrap() + ")");
            return;
        }
        Engine engine = Engine.ELASTICSEARCH;
        boolean secure = false;
        boolean usage = !java.util.Set.of("up", "down", "status").contains(command);
        for (int i = 1; i < args.length && !usage; i++) {
            if (args[i].equals("--engine") && i + 1 < args.length) {
                try {
                    engine = Engine.parse(args[++i]);
                } catch (IllegalArgumentException e) {
                    System.err.println(e.getMessage());
                    usage = true;
                }
            } else if (args[i].equals("--secure") && command.equals("up")) {
                secure = true;
            } else {
                usage = true;
            }
        }
        if (usage) {
            System.err.println(USAGE);
            System.exit(2);
        }
        if (secure && engine != Engine.ELASTICSEARCH) {
            System.err.println("--secure runs a secured Elasticsearch; " + engine.displayName()
                    + "'s integ-test-zip has no" + " security plugin: drop --secure or use --engine elasticsearch");
            System.exit(2);
        }
        LocalStack stack = fromEnvironment(engine);
        switch (command) {
            case "up" -> stack.up(secure);
            case "down" -> stack.down();
            default -> System.exit(stack.status() ? 0 : 3);
        }
    }
}
