package io.kes.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A real single Elasticsearch node from the integ-test-zip (transport-netty4, x-pack-core,
 * x-pack-security, apm). Each node gets its own config, data and log folders under
 * {@code nodeDir}; the unpacked distribution is shared and never written to.
 *
 * <p>Security is off unless {@link Builder#secured()} (then HTTPS, users, roles and API keys: see
 * {@link NodeSecurity}), and disk watermarks are ignored: this node is for tests and a laptop, and a
 * shared CI disk that is 90% full must not turn indices read-only mid-test.
 */
public final class ElasticsearchNode implements AutoCloseable {

    // -Dkes.es.startTimeoutSeconds: on a heavily shared machine three nodes took longer than 3 minutes to start
    private static final Duration START_TIMEOUT = Duration.ofSeconds(Long.getLong("kes.es.startTimeoutSeconds", 180));

    private final String version;
    private final Path nodeDir;
    private final int httpPort;
    private final int transportPort;
    private final Map<String, String> extraSettings;
    private final String heap;
    private final boolean detach;
    /** Null for a node without security. */
    private final NodeSecurity security;
    private Http adminHttp;
    private ServerProcess process;

    private ElasticsearchNode(Builder b) {
        this.version = b.version;
        this.nodeDir = b.nodeDir;
        this.httpPort = b.httpPort > 0 ? b.httpPort : Ports.free();
        this.transportPort = b.transportPort > 0 ? b.transportPort : Ports.free();
        this.extraSettings = Map.copyOf(b.settings);
        this.heap = b.heap;
        this.detach = b.detach;
        this.security = b.secured ? new NodeSecurity(nodeDir) : null;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The newest line this machine can run: 9.x when a JDK 21+ is found, else 8.19.x (which runs
     * on JDK 17), saying so on stderr.
     */
    public static String defaultVersion(StackLayout layout) {
        if (JavaHomes.find(21).isPresent()) {
            return layout.elasticsearch9Version();
        }
        System.err.println("[kes] no JDK >= 21 found (ES_JAVA_HOME, JAVA_HOME, /usr/lib/jvm): Elasticsearch "
                + layout.elasticsearch9Version() + " needs one; falling back to " + layout.elasticsearch8Version());
        return layout.elasticsearch8Version();
    }

    public String version() {
        return version;
    }

    public int majorVersion() {
        return Integer.parseInt(version.substring(0, version.indexOf('.')));
    }

    /** {@code http://127.0.0.1:<port>}, or for a secured node {@code https://localhost:<port>} (the name its certificate holds). */
    public String url() {
        return security != null ? "https://localhost:" + httpPort : "http://127.0.0.1:" + httpPort;
    }

    public boolean isSecured() {
        return security != null;
    }

    /** CA, fingerprint, kes's credentials and API key, and making more of them; only for a {@link Builder#secured()} node. */
    public NodeSecurity security() {
        if (security == null) {
            throw new IllegalStateException(this + " runs without security; build it with ElasticsearchNode.builder().secured()");
        }
        return security;
    }

    public int httpPort() {
        return httpPort;
    }

    /** Plain HTTP calls; on a secured node as the file-realm superuser, over HTTPS trusting the node's CA. */
    public synchronized Http http() {
        if (security == null) {
            return new Http(url());
        }
        if (adminHttp == null) {
            adminHttp = new Http(url(), security.sslContext(), NodeSecurity.basic(NodeSecurity.ADMIN_USER, security.adminPassword()));
        }
        return adminHttp;
    }

    public Path nodeDir() {
        return nodeDir;
    }

    public Path logFile() {
        return nodeDir.resolve("logs/console.log");
    }

    /**
     * Starts the node (again, after a stop or kill: same data) and waits until every primary shard
     * is active (yellow: a single node never assigns replicas, so an index with replicas would
     * keep a restarted node from ever turning green).
     */
    public synchronized ElasticsearchNode start() {
        if (process != null && process.isAlive()) {
            return this;
        }
        StackLayout layout = StackLayout.fromBuild();
        Path home = layout.elasticsearchHome(version);
        // 9.x needs 21+; 8.19 runs on 17-23 (newer JDKs dropped the SecurityManager that 8.x relies on).
        int minJdk = majorVersion() >= 9 ? 21 : 17;
        int maxJdk = majorVersion() >= 9 ? Integer.MAX_VALUE : 23;
        Path javaHome = JavaHomes.find(minJdk, maxJdk).orElseThrow(() -> new IllegalStateException(
                "Elasticsearch " + version + " needs a JDK " + minJdk + (maxJdk < 1000 ? "-" + maxJdk : "+")
                        + "; set ES_JAVA_HOME to one, or use Elasticsearch " + layout.elasticsearch8Version()));
        if (security != null) {
            home = SecurityAnalysisShim.homeWithShim(home, version, layout.runDir(), javaHome);
        }
        String user = UnprivilegedUser.ensureForElasticsearch();
        Map<String, String> env = new LinkedHashMap<>();
        env.put("ES_JAVA_HOME", javaHome.toString());
        env.put("ES_PATH_CONF", nodeDir.resolve("config").toString());
        env.put("ES_TMPDIR", nodeDir.resolve("tmp").toString());
        try {
            prepareNodeDir(home, env);
            if (user != null) {
                UnprivilegedUser.chownRecursively(nodeDir);
                home = readableByUser(home);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not prepare " + nodeDir, e);
        }
        env.put("ES_JAVA_OPTS", "-Xms" + heap + " -Xmx" + heap);
        process = ServerProcess.start("elasticsearch " + version, List.of(home.resolve("bin/elasticsearch").toString()),
                env, nodeDir, logFile(), user, detach, nodeDir.resolve("elasticsearch.pid"));
        awaitPrimariesActive();
        if (security != null) {
            try {
                security.setUp(http());
            } catch (IOException | RuntimeException e) {
                process.kill(); // nobody holds this node yet: it would outlive the test JVM
                throw new IllegalStateException("could not create kes's role, user and API key on " + this + "; log tail:\n"
                        + process.logTail(40), e);
            }
        }
        return this;
    }

    private void prepareNodeDir(Path home, Map<String, String> cliEnv) throws IOException {
        for (String sub : List.of("config", "data", "logs", "tmp")) {
            Files.createDirectories(nodeDir.resolve(sub));
        }
        Path config = nodeDir.resolve("config");
        try (Stream<Path> files = Files.walk(home.resolve("config"))) {
            for (Path source : (Iterable<Path>) files::iterator) {
                Path target = config.resolve(home.resolve("config").relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else if (!Files.exists(target)) {
                    Files.copy(source, target, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("cluster.name", "kes-" + nodeDir.getFileName());
        settings.put("node.name", nodeDir.getFileName().toString());
        settings.put("path.data", nodeDir.resolve("data").toString());
        settings.put("path.logs", nodeDir.resolve("logs").toString());
        settings.put("network.host", "127.0.0.1");
        settings.put("http.port", Integer.toString(httpPort));
        settings.put("transport.port", Integer.toString(transportPort));
        settings.put("discovery.type", "single-node");
        settings.put("xpack.security.enabled", "false");
        settings.put("cluster.routing.allocation.disk.threshold_enabled", "false");
        settings.put("action.destructive_requires_name", "false");
        if (security != null) {
            settings.putAll(security.prepare(home, cliEnv));
        }
        settings.putAll(extraSettings);
        StringBuilder yml = new StringBuilder("# written by kes-stack; edits are overwritten at each start\n");
        settings.forEach((k, v) -> yml.append(k).append(": \"").append(v).append("\"\n"));
        Files.writeString(config.resolve("elasticsearch.yml"), yml);
    }

    /**
     * A checkout under /root is not traversable by the unprivileged user: then run from a copy of
     * the distribution in the temp folder (made once per version).
     */
    private static Path readableByUser(Path home) throws IOException {
        if (UnprivilegedUser.canRead(home.resolve("lib"))) {
            return home;
        }
        Path copy = Path.of(System.getProperty("java.io.tmpdir"), "kes-" + home.getFileName());
        if (!Files.isDirectory(copy.resolve("lib"))) {
            UnprivilegedUser.require(UnprivilegedUser.run(List.of("cp", "-a", home.toString(), copy.toString())),
                    "copying " + home + " to " + copy);
            UnprivilegedUser.require(UnprivilegedUser.run(List.of("chmod", "-R", "a+rX", copy.toString())),
                    "chmod " + copy);
        }
        return copy;
    }

    private void awaitPrimariesActive() {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        Http http = http();
        String last = "no answer yet";
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("Elasticsearch " + version + " exited during start-up; log tail:\n"
                        + process.logTail(60));
            }
            try {
                Http.Response health = http.get("/_cluster/health?wait_for_status=yellow&timeout=2s");
                if (health.status() == 200) {
                    return;
                }
                last = "HTTP " + health.status() + " " + health.body();
            } catch (IOException notYetListening) {
                last = notYetListening.toString();
            }
            sleep(500);
        }
        String tail = process.logTail(60);
        process.kill();
        throw new IllegalStateException("Elasticsearch " + version + " had inactive primary shards after " + START_TIMEOUT
                + " (" + last + "); log tail:\n" + tail);
    }

    /** Graceful stop; the data stays, {@link #start()} brings the node back. */
    public synchronized void stop() {
        if (process != null) {
            process.stop(Duration.ofSeconds(30));
        }
    }

    /** kill -9, as a crash would: acknowledged writes that were not fsynced are lost. */
    public synchronized void kill() {
        if (process != null) {
            process.kill();
        }
    }

    /** Freezes the node (SIGSTOP): it keeps its connections but answers nothing until {@link #resume()}. */
    public synchronized void pause() {
        process.signal("STOP");
    }

    public synchronized void resume() {
        process.signal("CONT");
    }

    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    public Optional<ServerProcess> process() {
        return Optional.ofNullable(process);
    }

    public String logTail(int lines) {
        return ServerProcess.logTail(logFile(), lines);
    }

    @Override
    public void close() {
        stop();
    }

    @Override
    public String toString() {
        return "Elasticsearch " + version + " at " + url();
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Options of one node; anything unset gets a sensible default for a test. */
    public static final class Builder {
        private String version;
        private Path nodeDir;
        private int httpPort;
        private int transportPort;
        private final Map<String, String> settings = new LinkedHashMap<>();
        private String heap = "512m";
        private boolean detach;
        private boolean secured;

        public Builder version(String version) {
            this.version = version;
            return this;
        }

        public Builder nodeDir(Path nodeDir) {
            this.nodeDir = nodeDir;
            return this;
        }

        /** Fixed ports (bin/kes local); by default free ones are picked. */
        public Builder ports(int httpPort, int transportPort) {
            this.httpPort = httpPort;
            this.transportPort = transportPort;
            return this;
        }

        /** Any elasticsearch.yml setting, e.g. {@code thread_pool.write.queue_size: 1} for a 429 storm. */
        public Builder setting(String key, String value) {
            settings.put(key, value);
            return this;
        }

        public Builder heap(String heap) {
            this.heap = heap;
            return this;
        }

        /** Keep running after this JVM exits (bin/kes local up). */
        public Builder detach(boolean detach) {
            this.detach = detach;
            return this;
        }

        /**
         * A secured node, as production runs them: HTTPS, users, a least-privilege role for kes and
         * an API key ({@link ElasticsearchNode#security()}).
         */
        public Builder secured() {
            this.secured = true;
            return this;
        }

        public ElasticsearchNode build() {
            StackLayout layout = StackLayout.fromBuild();
            if (version == null) {
                version = defaultVersion(layout);
            }
            if (nodeDir == null) {
                nodeDir = layout.runDir().resolve("es-" + version + "-" + ProcessHandle.current().pid() + "-" + Ports.free());
            }
            return new ElasticsearchNode(this);
        }
    }
}
