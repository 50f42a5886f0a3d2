package io.kes.stack;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Over 300 lines on purpose: the certificates, the users and the API key are made together at
 * first start and kept together in the node's folder; split, each part would need the others' state.
 *
 * <p>What makes an {@link ElasticsearchNode} a secured one, as production clusters are: HTTPS with a
 * node certificate signed by a CA made at first start, {@code xpack.security.enabled: true}, a
 * file-realm superuser for setting up, and for kes a least-privilege role, a user with it and an
 * API key with the same privileges.
 *
 * <p>The certificates come from the JDK's keytool (one short JVM per step; the integ-test-zip's
 * {@code elasticsearch-certutil} does the same in two CLI runs that take 5 s of CPU each). The node
 * certificate names only {@code localhost} (no IP address): connecting by {@code 127.0.0.1} is a
 * host name mismatch, which tests use. Its certificate file holds the CA too, so the node sends
 * the CA in its chain, which fingerprint pinning needs.
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
     * The privileges kes needs (docs/config-reference.md, "Privileges kes needs", says why each):
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

    private static final Pattern API_KEY_ID = Pattern.compile("\"id\"\\s*:\\s*\"([^\"]+)\"");
    private static final Pattern API_KEY_ENCODED = Pattern.compile("\"encoded\"\\s*:\\s*\"([^\"]+)\"");

    /** An API key as Elasticsearch returns it: {@code encoded} is what kes's {@code elasticsearch.api_key} takes. */
    public record ApiKey(String id, String encoded) {}

    private final Path configDir;
    private final Path stateFile;
    private final Properties state = new Properties();
    private SSLContext ssl;

    NodeSecurity(Path nodeDir) {
        this.configDir = nodeDir.resolve("config");
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
        return configDir.resolve("certs/ca.crt");
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
        if (!Files.exists(caFile())) {
            makeCertificates();
        }
        state.setProperty("ca.fingerprint", sha256(readCertificate(caFile())));
        if (addAdmin != null) {
            awaitTool(addAdmin, "elasticsearch-users useradd " + ADMIN_USER);
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

    private static void awaitTool(Process p, String what) throws IOException {
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException(what + " failed: " + out);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for " + what, e);
        }
    }

    /** CA (EC P-256, CA:true) and a node certificate for {@code localhost} signed by it, as PEM files ES reads. */
    private void makeCertificates() throws IOException {
        Path certs = Files.createDirectories(configDir.resolve("certs"));
        Path work = Files.createDirectories(configDir.getParent().resolve("tmp/keytool"));
        String pass = randomSecret();
        Path caStore = work.resolve("ca.p12");
        Path nodeStore = work.resolve("node.p12");
        Files.deleteIfExists(caStore);
        Files.deleteIfExists(nodeStore);
        Path csr = work.resolve("node.csr");
        Path nodePem = work.resolve("node-only.crt");
        keytool(
                "-genkeypair",
                "-alias",
                "ca",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=kes stack CA",
                "-ext",
                "bc:c",
                "-validity",
                "3650",
                "-keystore",
                caStore.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                pass,
                "-keypass",
                pass);
        keytool(
                "-genkeypair",
                "-alias",
                "node",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=localhost",
                "-validity",
                "3650",
                "-keystore",
                nodeStore.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                pass,
                "-keypass",
                pass);
        keytool(
                "-certreq",
                "-alias",
                "node",
                "-keystore",
                nodeStore.toString(),
                "-storepass",
                pass,
                "-file",
                csr.toString());
        keytool(
                "-gencert",
                "-alias",
                "ca",
                "-keystore",
                caStore.toString(),
                "-storepass",
                pass,
                "-infile",
                csr.toString(),
                "-outfile",
                nodePem.toString(),
                "-rfc",
                "-validity",
                "3650",
                "-ext",
                "SAN=dns:localhost",
                "-ext",
                "KU=digitalSignature,keyEncipherment",
                "-ext",
                "EKU=serverAuth");
        try {
            KeyStore ca = load(caStore, pass);
            KeyStore node = load(nodeStore, pass);
            String caPem = pem((X509Certificate) ca.getCertificate("ca"));
            Files.writeString(certs.resolve("ca.crt"), caPem);
            Files.writeString(
                    certs.resolve("node.crt"), Files.readString(nodePem).trim() + "\n" + caPem);
            PrivateKey key = (PrivateKey) node.getKey("node", pass.toCharArray());
            Files.writeString(
                    certs.resolve("node.key"),
                    "-----BEGIN PRIVATE KEY-----\n" + base64Lines(key.getEncoded()) + "\n-----END PRIVATE KEY-----\n");
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(
                    "could not read the certificates keytool made in " + work + ": " + e.getMessage(), e);
        }
        try (var files = Files.list(work)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.delete(f); // the private keys live only in certs/node.key and nowhere else
            }
        }
    }

    private static KeyStore load(Path store, String pass) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, pass.toCharArray());
        }
        return ks;
    }

    private static void keytool(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-J-XX:TieredStopAtLevel=1",
                "-J-XX:+UseSerialGC"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        awaitTool(p, "keytool " + args[0]);
    }

    static String pem(X509Certificate cert) throws Exception {
        return "-----BEGIN CERTIFICATE-----\n" + base64Lines(cert.getEncoded()) + "\n-----END CERTIFICATE-----\n";
    }

    private static String base64Lines(byte[] der) {
        return Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der);
    }

    static X509Certificate readCertificate(Path pem) throws IOException {
        try (InputStream in = Files.newInputStream(pem)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        } catch (java.security.cert.CertificateException e) {
            throw new IOException("no certificate in " + pem + ": " + e.getMessage(), e);
        }
    }

    static String sha256(X509Certificate cert) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(cert.getEncoded()));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
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
        createRole(admin, KES_ROLE, KES_CLUSTER_PRIVILEGES, KES_INDEX_PRIVILEGES);
        createUser(admin, KES_USER, kesPassword(), KES_ROLE);
        ApiKey key = createApiKey(admin, "kes", KES_CLUSTER_PRIVILEGES, KES_INDEX_PRIVILEGES, null);
        state.setProperty("api_key.id", key.id());
        state.setProperty("api_key.encoded", key.encoded());
        save();
    }

    /** A role with these cluster privileges and these index privileges on every index. */
    public static void createRole(Http admin, String role, List<String> cluster, List<String> indices)
            throws IOException {
        admin.send("PUT", "/_security/role/" + role, roleDescriptor(cluster, indices))
                .requireOk("creating role " + role);
    }

    public static void createUser(Http admin, String user, String password, String... roles) throws IOException {
        admin.send(
                        "PUT",
                        "/_security/user/" + user,
                        "{\"password\":\"" + password + "\",\"roles\":" + json(List.of(roles)) + "}")
                .requireOk("creating user " + user);
    }

    /**
     * An API key limited to these privileges (on every index), expiring after {@code expiration}
     * (an Elasticsearch time value such as {@code 1s} or {@code 1d}) or never when null.
     */
    public static ApiKey createApiKey(
            Http admin, String name, List<String> cluster, List<String> indices, String expiration) throws IOException {
        String body =
                "{\"name\":\"" + name + "\"," + (expiration != null ? "\"expiration\":\"" + expiration + "\"," : "")
                        + "\"role_descriptors\":{\"" + name + "\":" + roleDescriptor(cluster, indices) + "}}";
        String answer = admin.send("POST", "/_security/api_key", body)
                .requireOk("creating API key " + name)
                .body();
        return new ApiKey(group(API_KEY_ID, answer), group(API_KEY_ENCODED, answer));
    }

    /** Invalidates (revokes) an API key: Elasticsearch answers 401 to it from then on. */
    public static void invalidateApiKey(Http admin, ApiKey key) throws IOException {
        String answer = admin.send("DELETE", "/_security/api_key", "{\"ids\":[\"" + key.id() + "\"]}")
                .requireOk("invalidating API key " + key.id())
                .body();
        if (!answer.contains(key.id())) {
            throw new IllegalStateException("Elasticsearch did not invalidate API key " + key.id() + ": " + answer);
        }
    }

    private static String roleDescriptor(List<String> cluster, List<String> indices) {
        String onIndices = indices.isEmpty() ? "" : "{\"names\":[\"*\"],\"privileges\":" + json(indices) + "}";
        return "{\"cluster\":" + json(cluster) + ",\"indices\":[" + onIndices + "]}";
    }

    private static String json(List<String> values) {
        return values.stream().map(v -> "\"" + v + "\"").collect(java.util.stream.Collectors.joining(",", "[", "]"));
    }

    private static String group(Pattern pattern, String json) {
        Matcher m = pattern.matcher(json);
        if (!m.find()) {
            throw new IllegalStateException("no " + pattern + " in " + json);
        }
        return m.group(1);
    }
}
