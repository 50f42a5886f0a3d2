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
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * A real single search node from an integ-test-zip: Elasticsearch or OpenSearch, which start the
 * same way (a config folder with one YAML file, a JDK in an environment variable, a refusal to run
 * as root). Each node gets its own config, data and log folders under {@code nodeDir}; the unpacked
 * distribution is shared and never written to. The engines differ only in what
 * {@link ElasticsearchNode} and {@link OpenSearchNode} declare. The node's folder layout, config,
 * JVM options and start are one sequence whose steps depend on each other (each comments why).
 *
 * <p>Security is off unless the engine adds it ({@link ElasticsearchNode} built with
 * {@link Builder#secured()}), and disk watermarks are ignored: this node is for tests and a laptop,
 * and a shared CI disk that is 90% full must not turn indices read-only mid-test.
 */
public abstract class SearchNode extends LocalServer {

    // -Dkes.es.startTimeoutSeconds (both engines): on a heavily shared machine three nodes took longer than 3 minutes
    // to start
    private static final Duration START_TIMEOUT = Duration.ofSeconds(Long.getLong("kes.es.startTimeoutSeconds", 180));

    private final String version;
    private final int httpPort;
    private final int transportPort;
    private final Map<String, String> extraSettings;
    private final String heap;
    private final boolean securedRequested;

    protected SearchNode(Builder<?> b) {
        super(b.nodeDir, b.detach);
        this.version = b.version;
        this.httpPort = b.httpPort > 0 ? b.httpPort : Ports.free();
        this.transportPort = b.transportPort > 0 ? b.transportPort : Ports.free();
        this.extraSettings = Map.copyOf(b.settings);
        this.heap = b.heap;
        this.securedRequested = b.secured;
    }

    public abstract Engine engine();

    /** The unpacked distribution of this node's version. */
    protected abstract Path home(StackLayout layout);

    /** The JDK this version runs on; the message names the fix when none is found. */
    protected abstract Path javaHome(StackLayout layout);

    /** {@code ES} or {@code OPENSEARCH}: the prefix of the launcher's environment variables. */
    protected abstract String envPrefix();

    /** Settings only this engine knows (e.g. {@code xpack.security.enabled}). */
    protected abstract Map<String, String> engineSettings();

    /** Whether the builder asked for {@link Builder#secured()}; the engine decides what that means. */
    protected final boolean securedRequested() {
        return securedRequested;
    }

    /** Whether this node runs with HTTPS and authentication; see {@link ElasticsearchNode#security()}. */
    public boolean isSecured() {
        return false;
    }

    /**
     * The distribution to launch from; an engine may swap in a prepared copy (Elasticsearch adds
     * plugins standing in for modules the integ-test-zip lacks).
     */
    protected Path launchHome(Path home, StackLayout layout, Path javaHome) {
        return home;
    }

    /**
     * Called while the node folder is prepared, before it is handed to the unprivileged user, with
     * the launcher's environment (for the engine's CLI tools): settings that override
     * {@link #engineSettings()}, e.g. a secured node's certificates and users.
     */
    protected Map<String, String> prepareSecurity(Path home, Map<String, String> cliEnv) throws IOException {
        return Map.of();
    }

    public String version() {
        return version;
    }

    public int majorVersion() {
        return Integer.parseInt(version.substring(0, version.indexOf('.')));
    }

    /** Whether this node's version is {@code major.minor} or newer. */
    public boolean versionAtLeast(int major, int minor) {
        String[] parts = version.split("[.-]");
        int ownMajor = Integer.parseInt(parts[0]);
        return ownMajor > major || (ownMajor == major && Integer.parseInt(parts[1]) >= minor);
    }

    @Override
    public String displayName() {
        return engine().displayName() + " " + version;
    }

    public String url() {
        return "http://127.0.0.1:" + httpPort;
    }

    public int httpPort() {
        return httpPort;
    }

    public Http http() {
        return new Http(url());
    }

    @Override
    protected Duration startTimeout() {
        return START_TIMEOUT;
    }

    @Override
    public Path logFile() {
        return nodeDir().resolve("logs/console.log");
    }

    /**
     * Starts the node (again, after a stop or kill: same data) and waits until every primary shard
     * is active (yellow: a single node never assigns replicas, so an index with replicas would
     * keep a restarted node from ever turning green).
     */
    @Override
    public synchronized SearchNode start() {
        super.start();
        return this;
    }

    @Override
    protected ServerProcess launch() {
        StackLayout layout = StackLayout.fromBuild();
        Path javaHome = javaHome(layout);
        Path home = launchHome(home(layout), layout, javaHome);
        String user = UnprivilegedUser.ensureForElasticsearch();
        String prefix = envPrefix();
        Map<String, String> env = new LinkedHashMap<>();
        env.put(prefix + "_JAVA_HOME", javaHome.toString());
        env.put(prefix + "_PATH_CONF", nodeDir().resolve("config").toString());
        env.put(prefix + "_TMPDIR", nodeDir().resolve("tmp").toString());
        try {
            prepareNodeDir(home, env);
            if (user != null) {
                UnprivilegedUser.chownRecursively(nodeDir());
                home = readableByUser(home);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not prepare " + nodeDir(), e);
        }
        // Only for the server: the CLI tools prepareSecurity runs take their own, smaller, options.
        env.put(prefix + "_JAVA_OPTS", "-Xms" + heap + " -Xmx" + heap);
        return spawn(
                List.of(home.resolve("bin/" + engine().command()).toString()),
                env,
                user,
                nodeDir().resolve(engine().command() + ".pid"));
    }

    @Override
    protected Optional<String> notReadyBecause() throws IOException {
        Http.Response health = http().get("/_cluster/health?wait_for_status=yellow&timeout=2s");
        return health.status() == 200 ? Optional.empty() : Optional.of("HTTP " + health.status() + " " + health.body());
    }

    private void prepareNodeDir(Path home, Map<String, String> cliEnv) throws IOException {
        Path nodeDir = nodeDir();
        for (String sub : List.of("config", "data", "logs", "tmp")) {
            Files.createDirectories(nodeDir.resolve(sub));
        }
        Path config = nodeDir.resolve("config");
        try (Stream<Path> files = Files.walk(home.resolve("config"))) {
            for (Path source : (Iterable<Path>) files::iterator) {
                Path target =
                        config.resolve(home.resolve("config").relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else if (!Files.exists(target)) {
                    Files.copy(source, target, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        anchorJvmOptionPaths(config.resolve("jvm.options"));
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("cluster.name", "kes-" + nodeDir.getFileName());
        settings.put("node.name", nodeDir.getFileName().toString());
        settings.put("path.data", nodeDir.resolve("data").toString());
        settings.put("path.logs", nodeDir.resolve("logs").toString());
        settings.put("network.host", "127.0.0.1");
        settings.put("http.port", Integer.toString(httpPort));
        settings.put("transport.port", Integer.toString(transportPort));
        settings.put("discovery.type", "single-node");
        settings.put("cluster.routing.allocation.disk.threshold_enabled", "false");
        settings.put("action.destructive_requires_name", "false");
        settings.putAll(engineSettings());
        settings.putAll(prepareSecurity(home, cliEnv));
        settings.putAll(extraSettings);
        StringBuilder yml = new StringBuilder("# written by kes-stack; edits are overwritten at each start\n");
        settings.forEach((k, v) -> yml.append(k).append(": \"").append(v).append("\"\n"));
        Files.writeString(config.resolve(engine().command() + ".yml"), yml);
    }

    /**
     * OpenSearch's jvm.options name {@code logs/gc.log}, {@code logs/hs_err_pid%p.log} and
     * {@code data} relative to the launcher's working folder, which is the (shared, read-only)
     * distribution: anchor them in this node's folder. Elasticsearch's already are absolute.
     */
    private void anchorJvmOptionPaths(Path jvmOptions) throws IOException {
        if (!Files.exists(jvmOptions)) {
            return;
        }
        String options = Files.readString(jvmOptions);
        String anchored = options.replaceAll("(?m)([=:])logs/", "$1" + nodeDir().resolve("logs") + "/")
                .replaceAll(
                        "(?m)HeapDumpPath=data$", "HeapDumpPath=" + nodeDir().resolve("data"));
        if (!anchored.equals(options)) {
            Files.writeString(jvmOptions, anchored);
        }
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
            UnprivilegedUser.require(
                    UnprivilegedUser.run(List.of("cp", "-a", home.toString(), copy.toString())),
                    "copying " + home + " to " + copy);
            UnprivilegedUser.require(
                    UnprivilegedUser.run(List.of("chmod", "-R", "a+rX", copy.toString())), "chmod " + copy);
        }
        return copy;
    }

    /** A JDK within [min, max] or a message that says which one the version needs. */
    protected final Path requireJdk(int min, int max, String otherwise) {
        return JavaHomes.find(min, max)
                .orElseThrow(() -> new IllegalStateException(displayName() + " needs a JDK " + min
                        + (max < 1000 ? "-" + max : "+") + "; set " + envPrefix() + "_JAVA_HOME to one" + otherwise));
    }

    @Override
    public String toString() {
        return displayName() + " at " + url();
    }

    /** Options of one node; anything unset gets a sensible default for a test. */
    public static final class Builder<N extends SearchNode> {
        private final Engine engine;
        private final Function<Builder<N>, N> create;
        private String version;
        private Path nodeDir;
        private int httpPort;
        private int transportPort;
        private final Map<String, String> settings = new LinkedHashMap<>();
        private String heap = "512m";
        private boolean detach;
        private boolean secured;

        Builder(Engine engine, Function<Builder<N>, N> create) {
            this.engine = engine;
            this.create = create;
        }

        public Builder<N> version(String version) {
            this.version = version;
            return this;
        }

        public Builder<N> nodeDir(Path nodeDir) {
            this.nodeDir = nodeDir;
            return this;
        }

        /** Fixed ports (bin/kes local); by default free ones are picked. */
        public Builder<N> ports(int httpPort, int transportPort) {
            this.httpPort = httpPort;
            this.transportPort = transportPort;
            return this;
        }

        /** Any setting of the node's YAML file, e.g. {@code thread_pool.write.queue_size: 1} for a 429 storm. */
        public Builder<N> setting(String key, String value) {
            settings.put(key, value);
            return this;
        }

        public Builder<N> heap(String heap) {
            this.heap = heap;
            return this;
        }

        /** Keep running after this JVM exits (bin/kes local up). */
        public Builder<N> detach(boolean detach) {
            this.detach = detach;
            return this;
        }

        /**
         * A secured node, as production runs them: HTTPS, users, a least-privilege role for kes and
         * an API key ({@link ElasticsearchNode#security()}). Elasticsearch only: OpenSearch's
         * integ-test-zip has no security plugin.
         */
        public Builder<N> secured() {
            this.secured = true;
            return this;
        }

        public N build() {
            StackLayout layout = StackLayout.fromBuild();
            if (version == null) {
                version = engine.defaultVersion(layout);
            }
            if (nodeDir == null) {
                nodeDir = layout.runDir()
                        .resolve(engine.command() + "-" + version + "-"
                                + ProcessHandle.current().pid() + "-" + Ports.free());
            }
            return create.apply(this);
        }
    }
}
