package io.kes.stack;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * What makes an {@link ElasticsearchNode} a secured one, as production clusters are: HTTPS with a
 * node certificate signed by a CA made at first start, {@code xpack.security.enabled: true}, a
 * file-realm superuser for setting up, and for kes a least-privilege role, a user with it and an
 * API key with the same privileges.
 *
 * <p>This class holds the node's settings and the credentials made for it; the certificates are
 * {@link NodeCertificates}, the calls that make roles, users and API keys {@link SecurityApi}.
 *
 * <p>Everything made at first start (certificates, passwords, the API key) is kept in the node's
 * folder, so a restarted node (or {@code bin/kes local up} again) keeps its credentials.
 */
public final class NodeSecurity {

    /** The file-realm superuser used to set the node up; never kes's own credentials. */
    public static final String ADMIN_USER = "kes-admin";

    public static final String KES_USER = "kes";
    public static final String KES_ROLE = "kes_writer";

    /**
     * The privileges kes needs (docs/security.md, "Privileges kes needs", says why each):
     * cluster {@code monitor} (cluster state, node addresses, tasks) and
     * {@code manage_index_templates} (routes with {@code index_template:}); on the indices it writes
     * {@code auto_configure} (indices its writes create, and the mapping updates of new fields),
     * {@code create_doc}, {@code index},
     * {@code delete} (the writes), {@code view_index_metadata} (shard calibration, write indices of
     * aliases and data streams), {@code monitor} and {@code maintenance} (the checkpoint fence's
     * {@code _stats} and {@code _flush}).
     */
    public static final List<String> KES_CLUSTER_PRIVILEGES = List.of("monitor", "manage_index_templates");

    public static final List<String> KES_INDEX_PRIVILEGES =
            List.of("auto_configure", "create_doc", "index", "delete", "view_index_metadata", "monitor", "maintenance");

    /** An API key as Elasticsearch returns it: {@code encoded} is what kes's {@code elasticsearch.api_key} takes. */
    public record ApiKey(String id, String encoded) {}

    private final Path configDir;
    private final NodeCertificates certificates;
    private final Path stateFile;
    private final Properties state = new Properties();
    private SSLContext ssl;

    NodeSecurity(Path nodeDir) {
        this.configDir = nodeDir.resolve("config");
        this.certificates = new NodeCertificates(configDir);
        this.stateFile = nodeDir.resolve("kes-security.properties");
    }

    /** The security of a node set up earlier in {@code nodeDir} (bin/kes local status), or null when there is none. */
    public static NodeSecurity existing(Path nodeDir) throws IOException {
        NodeSecurity security = new NodeSecurity(nodeDir);
        if (!Files.exists(security.stateFile)) {
            return null;
        }
        try (InputStream in = Files.newInputStream(security.stateFile)) {
            security.state.load(in);
        }
        return security;
    }

    /** The PEM file of the CA that signed the node's HTTP certificate: {@code elasticsearch.tls_ca_file}. */
    public Path caFile() {
        return certificates.caFile();
    }

    /** SHA-256 of the CA certificate, hex: {@code elasticsearch.tls_fingerprint}. */
    public String caFingerprint() {
        return state.getProperty("ca.fingerprint");
    }

    public String kesUser() {
        return KES_USER;
    }

    public String kesPassword() {
        return state.getProperty("kes.password");
    }

    /** An API key with kes's privileges (the same as {@link #KES_ROLE}'s). */
    public ApiKey apiKey() {
        return new ApiKey(state.getProperty("api_key.id"), state.getProperty("api_key.encoded"));
    }

    public String adminPassword() {
        return state.getProperty("admin.password");
    }

    /** TLS that trusts the node's CA (and verifies the host name, as kes does). */
    public synchronized SSLContext sslContext() {
        if (ssl == null) {
            try (InputStream in = Files.newInputStream(caFile())) {
                KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
                trust.load(null, null);
                trust.setCertificateEntry(
                        "ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
                TrustManagerFactory factory =
                        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                factory.init(trust);
                SSLContext context = SSLContext.getInstance("TLS");
                context.init(null, factory.getTrustManagers(), null);
                ssl = context;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (Exception e) {
                throw new IllegalStateException("cannot trust " + caFile() + ": " + e.getMessage(), e);
            }
        }
        return ssl;
    }

    static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Before the first start (or again, which changes nothing): certificates, the superuser in the
     * file realm, the elasticsearch.yml settings. Runs before the node folder is handed to the
     * unprivileged user.
     */
    Map<String, String> prepare(Path home, Map<String, String> cliEnv) throws IOException {
        if (Files.exists(stateFile)) {
            try (InputStream in = Files.newInputStream(stateFile)) {
                state.load(in);
            }
        }
        Process addAdmin = null;
        if (state.getProperty("admin.password") == null) {
            state.setProperty("admin.password", randomSecret());
            state.setProperty("kes.password", randomSecret());
            // One CLI JVM, started first: it runs while keytool makes the certificates.
            addAdmin = startUsersTool(home, cliEnv);
        }
        if (!certificates.made()) {
            certificates.make(randomSecret());
        }
        state.setProperty("ca.fingerprint", certificates.caFingerprint());
        if (addAdmin != null) {
            CliTool.await(addAdmin, "elasticsearch-users useradd " + ADMIN_USER);
        }
        save();
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("xpack.security.enabled", "true");
        settings.put("xpack.security.http.ssl.enabled", "true");
        settings.put("xpack.security.http.ssl.key", "certs/node.key");
        settings.put("xpack.security.http.ssl.certificate", "certs/node.crt");
        settings.put("xpack.security.http.ssl.certificate_authorities", "certs/ca.crt");
        // A single node talks to no other: its transport needs no TLS (the bootstrap check asks for
        // it only when nodes discover each other).
        settings.put("xpack.security.transport.ssl.enabled", "false");
        settings.put("xpack.security.authc.api_key.enabled", "true");
        // The address the node publishes (_nodes/http, which kes uses to reach a shard's primary)
        // carries the name in its certificate, so that those requests pass the host name check.
        settings.put("http.publish_host", "localhost");
        return settings;
    }

    private Process startUsersTool(Path home, Map<String, String> cliEnv) throws IOException {
        // Empty files, not the ones of a half-finished earlier start: the tool refuses an existing user.
        Files.writeString(configDir.resolve("users"), "");
        Files.writeString(configDir.resolve("users_roles"), "");
        ProcessBuilder pb = new ProcessBuilder(
                        home.resolve("bin/elasticsearch-users").toString(),
                        "useradd",
                        ADMIN_USER,
                        "-p",
                        adminPassword(),
                        "-r",
                        "superuser")
                .redirectErrorStream(true);
        pb.environment().putAll(cliEnv);
        pb.environment().put("CLI_JAVA_OPTS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC");
        return pb.start();
    }

    private static String randomSecret() {
        byte[] bytes = new byte[18];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private void save() throws IOException {
        try (var out = Files.newOutputStream(stateFile)) {
            state.store(out, "kes-stack: credentials of this secured node (test and local use only)");
        }
    }

    /**
     * After the node answers: kes's role, user and API key, made once (native realm and API keys
     * live in the node's data, so a restarted node has them already).
     */
    void setUp(Http admin) throws IOException {
        if (state.getProperty("api_key.encoded") != null) {
            return;
        }
        SecurityApi.createRole(admin, KES_ROLE, KES_CLUSTER_PRIVILEGES, KES_INDEX_PRIVILEGES);
        SecurityApi.createUser(admin, KES_USER, kesPassword(), KES_ROLE);
        ApiKey key = SecurityApi.createApiKey(admin, "kes", KES_CLUSTER_PRIVILEGES, KES_INDEX_PRIVILEGES, null);
        state.setProperty("api_key.id", key.id());
        state.setProperty("api_key.encoded", key.encoded());
        save();
    }
}
