package io.kes.stack;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A real Elasticsearch node from the integ-test-zip (transport-netty4, x-pack-core, x-pack-security, apm).
 *
 * <p>Security is off unless {@link SearchNode.Builder#secured()}: then HTTPS, users, roles and API
 * keys (see {@link NodeSecurity}), and {@link #http()} calls as the file-realm superuser.
 */
public final class ElasticsearchNode extends SearchNode {

    /** Null for a node without security. */
    private final NodeSecurity security;

    private Http adminHttp;

    private ElasticsearchNode(Builder<ElasticsearchNode> b) {
        super(b);
        this.security = securedRequested() ? new NodeSecurity(nodeDir()) : null;
    }

    public static Builder<ElasticsearchNode> builder() {
        return new Builder<>(Engine.ELASTICSEARCH, ElasticsearchNode::new);
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

    @Override
    public Engine engine() {
        return Engine.ELASTICSEARCH;
    }

    /** {@code http://127.0.0.1:<port>}, or for a secured node {@code https://localhost:<port>} (the name its certificate holds). */
    @Override
    public String url() {
        return security != null ? "https://localhost:" + httpPort() : super.url();
    }

    @Override
    public boolean isSecured() {
        return security != null;
    }

    /** CA, fingerprint, kes's credentials and API key, and making more of them; only for a {@link Builder#secured()} node. */
    public NodeSecurity security() {
        if (security == null) {
            throw new IllegalStateException(
                    this + " runs without security; build it with ElasticsearchNode.builder().secured()");
        }
        return security;
    }

    /** Plain HTTP calls; on a secured node as the file-realm superuser, over HTTPS trusting the node's CA. */
    @Override
    public synchronized Http http() {
        if (security == null) {
            return super.http();
        }
        if (adminHttp == null) {
            adminHttp = new Http(
                    url(),
                    security.sslContext(),
                    NodeSecurity.basic(NodeSecurity.ADMIN_USER, security.adminPassword()));
        }
        return adminHttp;
    }

    @Override
    public synchronized ElasticsearchNode start() {
        super.start();
        return this;
    }

    @Override
    protected Path home(StackLayout layout) {
        return layout.distributionHome(Engine.ELASTICSEARCH, version());
    }

    /** 9.x needs 21+; 8.19 runs on 17-23 (newer JDKs dropped the SecurityManager that 8.x relies on). */
    @Override
    protected Path javaHome(StackLayout layout) {
        boolean nine = majorVersion() >= 9;
        return requireJdk(
                nine ? 21 : 17,
                nine ? Integer.MAX_VALUE : 23,
                ", or use Elasticsearch " + layout.elasticsearch8Version());
    }

    @Override
    protected String envPrefix() {
        return "ES";
    }

    @Override
    protected Map<String, String> engineSettings() {
        return Map.of("xpack.security.enabled", "false");
    }

    /**
     * The integ-test-zip plus the plugins standing in for what it leaves out ({@link PluginShims}):
     * a secured node's .security index needs analyzers of analysis-common, and on 9.1+ the
     * failure store needs a feature of data-streams and a field type of mapper-extras.
     */
    @Override
    protected Path launchHome(Path home, StackLayout layout, Path javaHome) {
        return PluginShims.homeWith(shims(), home, version(), layout.runDir(), javaHome);
    }

    List<PluginShims.Shim> shims() {
        List<PluginShims.Shim> shims = new ArrayList<>();
        if (security != null) {
            shims.add(PluginShims.SECURITY_ANALYSIS);
        }
        if (versionAtLeast(9, 1)) {
            shims.add(PluginShims.FAILURE_STORE);
        }
        return shims;
    }

    /** Certificates, the superuser in the file realm, and the settings that turn security on. */
    @Override
    protected Map<String, String> prepareSecurity(Path home, Map<String, String> cliEnv) throws IOException {
        return security != null ? security.prepare(home, cliEnv) : Map.of();
    }

    /** kes's role, user and API key, made once (they live in the node's data, so a restarted node has them). */
    @Override
    protected void afterReady() throws IOException {
        if (security != null) {
            try {
                security.setUp(http());
            } catch (IOException | RuntimeException e) {
                throw new IllegalStateException(
                        "could not create kes's role, user and API key on " + this + ": " + e.getMessage(), e);
            }
        }
    }
}
