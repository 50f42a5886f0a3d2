package io.kes.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * A real Kafka broker in KRaft mode (one process is broker and controller), from the kafka_2.13
 * jars, in a child JVM so its Scala and server libraries never share a classpath with Flink.
 * Built with {@link Builder#secured()} it also has a SASL_SSL (SCRAM-SHA-512) and an mTLS
 * listener, with certificates and credentials made at start: see {@link #security()}. What it is
 * told at each start is {@link KafkaBrokerFiles}.
 */
public final class KafkaBroker extends LocalServer {

    private final Path nodeDir;
    private final int port;
    private final int controllerPort;
    private final boolean secured;
    private final int saslSslPort;
    private final int mtlsPort;
    private KafkaSecurity security;

    private KafkaBroker(Builder b) {
        super(b.nodeDir, b.detach);
        this.nodeDir = b.nodeDir;
        this.port = b.port > 0 ? b.port : Ports.free();
        this.controllerPort = b.controllerPort > 0 ? b.controllerPort : Ports.free();
        this.secured = b.secured;
        this.saslSslPort = b.secured ? Ports.free() : -1;
        this.mtlsPort = b.secured ? Ports.free() : -1;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A broker on free ports with its data under target/ (tests). */
    public static KafkaBroker forTests() {
        return builder().build();
    }

    /** A broker on fixed ports that outlives this JVM (bin/kes local). */
    public static KafkaBroker fixed(Path nodeDir, int port, int controllerPort) {
        return builder()
                .nodeDir(nodeDir)
                .ports(port, controllerPort)
                .detach(true)
                .build();
    }

    /** The PLAINTEXT listener: every broker has it (on a secured one, for set-up: topics, admin). */
    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    /**
     * The secured listeners' addresses, trust and key stores, and SCRAM user of a broker built with
     * {@link Builder#secured()}, once started.
     */
    public synchronized KafkaSecurity security() {
        if (!secured) {
            throw new IllegalStateException(
                    this + " has no secured listeners: build it with KafkaBroker.builder().secured()");
        }
        if (security == null) {
            throw new IllegalStateException(
                    this + " makes its certificates and credentials at start(): start it first");
        }
        return security;
    }

    @Override
    public String displayName() {
        return "Kafka";
    }

    @Override
    public Path logFile() {
        return nodeDir.resolve("kafka.log");
    }

    @Override
    protected Duration startTimeout() {
        return Duration.ofSeconds(120);
    }

    /** Starts the broker (again, after a stop or kill: same data) and waits until it answers. */
    @Override
    public synchronized KafkaBroker start() {
        super.start();
        return this;
    }

    @Override
    protected ServerProcess launch() {
        Path libs = StackLayout.fromBuild().kafkaLibs();
        Path config = nodeDir.resolve("server.properties");
        if (secured && security == null) { // start() holds the lock
            security = KafkaSecurity.generate(nodeDir.resolve("tls"), saslSslPort, mtlsPort);
        }
        try {
            Files.createDirectories(nodeDir.resolve("data"));
            Files.writeString(
                    config, KafkaBrokerFiles.serverProperties(port, controllerPort, nodeDir.resolve("data"), security));
            Files.writeString(nodeDir.resolve("log4j2.properties"), KafkaBrokerFiles.LOG4J2);
        } catch (IOException e) {
            throw new UncheckedIOException("could not prepare " + nodeDir, e);
        }
        if (!Files.exists(nodeDir.resolve("data/meta.properties"))) {
            format(libs, config);
        }
        return spawn(javaCommand(libs, "kafka.Kafka", config.toString()), Map.of(), null, nodeDir.resolve("kafka.pid"));
    }

    private void format(Path libs, Path config) {
        List<String> args =
                new ArrayList<>(List.of("format", "-t", Uuid.randomUuid().toString(), "-c", config.toString()));
        if (security != null) {
            // SCRAM users live in the metadata log; written at format time they exist before the first client connects.
            args.addAll(List.of("--add-scram", security.scramCredentialArgument()));
        }
        List<String> command = javaCommand(libs, "kafka.tools.StorageTool", args.toArray(String[]::new));
        try {
            Process p = new ProcessBuilder(command)
                    .directory(nodeDir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()))
                    .start();
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException(
                        "formatting Kafka storage failed; log tail:\n" + ServerProcess.logTail(logFile(), 40));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not run the Kafka storage tool", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while formatting Kafka storage", e);
        }
    }

    private List<String> javaCommand(Path libs, String mainClass, String... args) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms256m",
                "-Xmx768m",
                "-XX:+UseG1GC",
                "-Dlog4j2.configurationFile=" + nodeDir.resolve("log4j2.properties"),
                "-cp",
                libs.resolve("*").toString(),
                mainClass));
        command.addAll(List.of(args));
        return command;
    }

    /** No admin client before the port opens: it would log a warning per try. */
    @Override
    protected Optional<String> notReadyBecause() throws Exception {
        if (!Ports.isListening(port)) {
            return Optional.of("port " + port + " not open");
        }
        try (Admin admin = admin()) {
            admin.describeCluster().nodes().get(5, TimeUnit.SECONDS);
            return Optional.empty();
        }
    }

    public Admin admin() {
        return adminAt(bootstrapServers());
    }

    /** An admin client for any broker, e.g. the one {@code bin/kes local} runs. */
    public static Admin adminAt(String bootstrapServers) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
        return Admin.create(props);
    }

    /** Creates a topic; an existing one with that name is left as it is. */
    public void createTopic(String name, int partitions, Map<String, String> configs) {
        createTopicAt(bootstrapServers(), name, partitions, configs);
    }

    public static void createTopicAt(
            String bootstrapServers, String name, int partitions, Map<String, String> configs) {
        createTopicsAt(bootstrapServers, List.of(new NewTopic(name, partitions, (short) 1).configs(configs)));
    }

    /**
     * Creates topics and waits until every partition has a leader: a producer that starts right
     * after creation can otherwise race the broker's metadata and fail its first batches.
     */
    public static void createTopicsAt(String bootstrapServers, Collection<NewTopic> topics) {
        try (Admin admin = adminAt(bootstrapServers)) {
            for (var entry : admin.createTopics(topics).values().entrySet()) {
                try {
                    entry.getValue().get(30, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException(
                                "could not create topic " + entry.getKey() + ": " + e.getCause(), e.getCause());
                    }
                }
            }
            List<String> names = topics.stream().map(NewTopic::name).toList();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (true) {
                try {
                    boolean ready =
                            admin.describeTopics(names).allTopicNames().get(10, TimeUnit.SECONDS).values().stream()
                                    .flatMap(d -> d.partitions().stream())
                                    .allMatch(p ->
                                            p.leader() != null && !p.leader().isEmpty());
                    if (ready) {
                        break;
                    }
                } catch (ExecutionException notYetKnown) {
                    // metadata not propagated yet
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("partitions of " + names + " have no leader after 30 s");
                }
                LocalServer.sleep(100);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics " + topics, e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException(
                    "Kafka at " + bootstrapServers + " did not create topics " + topics + " within 30 s", e);
        }
    }

    @Override
    public String toString() {
        return "Kafka at " + bootstrapServers();
    }

    /** Options of one broker; anything unset gets a default for a test. */
    public static final class Builder {
        private Path nodeDir;
        private int port;
        private int controllerPort;
        private boolean detach;
        private boolean secured;

        public Builder nodeDir(Path nodeDir) {
            this.nodeDir = nodeDir;
            return this;
        }

        /** Fixed ports (bin/kes local); by default free ones are picked. */
        public Builder ports(int port, int controllerPort) {
            this.port = port;
            this.controllerPort = controllerPort;
            return this;
        }

        /** Keep running after this JVM exits (bin/kes local up). */
        public Builder detach(boolean detach) {
            this.detach = detach;
            return this;
        }

        /** Adds a SASL_SSL (SCRAM-SHA-512) and an mTLS listener on free ports; see {@link KafkaSecurity}. */
        public Builder secured() {
            this.secured = true;
            return this;
        }

        public KafkaBroker build() {
            if (nodeDir == null) {
                nodeDir = StackLayout.fromBuild()
                        .runDir()
                        .resolve("kafka-" + ProcessHandle.current().pid() + "-" + Ports.free());
            }
            return new KafkaBroker(this);
        }
    }
}
