package io.kes.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.kes.jobs.config.KesConfig;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.Http;
import io.kes.stack.KafkaBroker;
import io.kes.stack.NodeSecurity;
import io.kes.stack.NodeSecurity.ApiKey;
import io.kes.stack.SecurityApi;
import io.kes.stack.SharedServers;
import io.kes.stack.junit.KafkaExtension;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kes job against a secured Elasticsearch node (HTTPS, users, roles, API keys; see
 * {@link NodeSecurity}), submitted to a MiniCluster that restarts failed jobs without limit, as
 * {@code checkpoints-config/local.yaml} does: every way in works, every way kes must be kept out is
 * refused, and every credential or privilege error ends the job once, with one message that says
 * what is wrong and which setting fixes it. No secret shows in the logs, the exceptions or what
 * Flink's REST API (the web UI) shows of the job.
 */
@ExtendWith(KafkaExtension.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class SecuredElasticsearchIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int KEYS = 30;
    private static final String TOPIC = "secured-changes";

    private static ElasticsearchNode es;
    private static NodeSecurity security;
    private static SecuredFlink flink;
    private static LogCapture logs;
    private static final List<String> secrets = new ArrayList<>();
    private static final AtomicInteger names = new AtomicInteger();

    @TempDir
    static Path dir;

    @BeforeAll
    static void start(KafkaBroker kafka) throws Exception {
        logs = LogCapture.install();
        es = SharedServers.securedElasticsearch();
        security = es.security();
        secrets.addAll(List.of(security.kesPassword(), security.apiKey().encoded(), security.adminPassword()));
        flink = new SecuredFlink();
        TestTopics.produce(kafka, TOPIC, Map.of(), changes(0, 2));
    }

    @AfterAll
    static void stop() throws Exception {
        if (flink != null) {
            flink.close();
        }
        if (logs != null) {
            logs.close();
        }
    }

    /** Two versions of each key, the second one last: the index must end with the second. */
    private static List<TestTopics.KeyValue> changes(int firstVersion, int versions) {
        List<TestTopics.KeyValue> records = new ArrayList<>();
        for (int v = firstVersion; v < firstVersion + versions; v++) {
            for (int k = 0; k < KEYS; k++) {
                records.add(TestTopics.KeyValue.of("k" + k, "{\"key\":\"k" + k + "\",\"version\":" + v + "}"));
            }
        }
        return records;
    }

    private static Map<String, String> expected(int lastVersion) {
        Map<String, String> byId = new TreeMap<>();
        for (int k = 0; k < KEYS; k++) {
            byId.put("k" + k, "{\"key\":\"k" + k + "\",\"version\":" + lastVersion + "}");
        }
        return byId;
    }

    // ---- ways in ----

    @Test
    void basicAuthOverHttpsTrustingTheCaFileWritesEveryKeysLastValue(KafkaBroker kafka) throws Exception {
        String index = index();
        runToEnd(
                kafka,
                index,
                "username: kes, password: \"" + security.kesPassword() + "\", tls_ca_file: \"" + security.caFile()
                        + "\"");
        assertThat(documents(index)).isEqualTo(expected(1));
    }

    @Test
    void apiKeyOverHttpsPinningTheCaFingerprintWritesEveryKeysLastValue(KafkaBroker kafka) throws Exception {
        String index = index();
        runToEnd(
                kafka,
                index,
                "api_key: \"" + security.apiKey().encoded() + "\", tls_fingerprint: \"" + security.caFingerprint()
                        + "\"");
        assertThat(documents(index)).isEqualTo(expected(1));
    }

    // ---- ways kes must be kept out: refused before a credential leaves ----

    @Test
    void aForgedChainOfItsOwnLeafAndTheRealCaCertificateIsRefusedBeforeAnyRequest(KafkaBroker kafka) throws Exception {
        X509Certificate realCa = certificate(security.caFile());
        Attacker attacker = Attacker.presenting(dir, realCa);
        try {
            String failure = failsOnce(
                    kafka,
                    index(),
                    "https://localhost:" + attacker.port(),
                    "api_key: \"" + security.apiKey().encoded() + "\", tls_fingerprint: \"" + security.caFingerprint()
                            + "\"");
            assertThat(failure)
                    .contains("does not validate against the pinned certificate", "elasticsearch.tls_fingerprint");
            assertThat(attacker.requests())
                    .as("requests (and credentials) that reached the forged server")
                    .isZero();

            failure = failsOnce(
                    kafka,
                    index(),
                    "https://localhost:" + attacker.port(),
                    "username: kes, password: \"" + security.kesPassword() + "\", tls_ca_file: \"" + security.caFile()
                            + "\"");
            assertThat(failure).contains("elasticsearch.tls_ca_file");
            assertThat(attacker.requests()).isZero();
        } finally {
            attacker.stop();
        }
    }

    @Test
    void anAddressTheNodeCertificateDoesNotNameIsRefused(KafkaBroker kafka) throws Exception {
        // The node's certificate names localhost only; 127.0.0.1 is the same node under another name.
        String failure = failsOnce(
                kafka,
                index(),
                "https://127.0.0.1:" + es.httpPort(),
                "username: kes, password: \"" + security.kesPassword() + "\", tls_ca_file: \"" + security.caFile()
                        + "\"");
        assertThat(failure).contains("127.0.0.1", "elasticsearch.hosts");
    }

    // ---- credentials that do not work: one error, no restart ----

    @Test
    void aWrongPasswordEndsTheJobOnceNamingTheUserAndPasswordSettings(KafkaBroker kafka) throws Exception {
        String failure = failsOnce(
                kafka,
                index(),
                es.url(),
                "username: kes, password: \"not-the-password\", tls_ca_file: \"" + security.caFile() + "\"");
        assertThat(failure)
                .contains("HTTP 401", "elasticsearch.username", "elasticsearch.password")
                .doesNotContain("not-the-password");
    }

    @Test
    void aRevokedApiKeyEndsTheJobOnceNamingTheApiKeySetting(KafkaBroker kafka) throws Exception {
        ApiKey revoked = SecurityApi.createApiKey(
                es.http(),
                "revoked-" + names.incrementAndGet(),
                NodeSecurity.KES_CLUSTER_PRIVILEGES,
                NodeSecurity.KES_INDEX_PRIVILEGES,
                null);
        secrets.add(revoked.encoded());
        SecurityApi.invalidateApiKey(es.http(), revoked);
        String failure = failsOnce(
                kafka,
                index(),
                es.url(),
                "api_key: \"" + revoked.encoded() + "\", tls_ca_file: \"" + security.caFile() + "\"");
        assertThat(failure).contains("HTTP 401", "elasticsearch.api_key");
    }

    @Test
    void anExpiredApiKeyEndsTheJobOnceNamingTheApiKeySetting(KafkaBroker kafka) throws Exception {
        ApiKey expired = SecurityApi.createApiKey(
                es.http(),
                "expired-" + names.incrementAndGet(),
                NodeSecurity.KES_CLUSTER_PRIVILEGES,
                NodeSecurity.KES_INDEX_PRIVILEGES,
                "1s");
        secrets.add(expired.encoded());
        Thread.sleep(1500);
        String failure = failsOnce(
                kafka,
                index(),
                es.url(),
                "api_key: \"" + expired.encoded() + "\", tls_ca_file: \"" + security.caFile() + "\"");
        assertThat(failure).contains("HTTP 401", "elasticsearch.api_key");
    }

    // ---- a role without one of the privileges kes needs ----

    @Test
    void withoutClusterMonitorTheJobEndsOnceNamingIt(KafkaBroker kafka) throws Exception {
        String failure = failsOnce(kafka, index(), es.url(), userWithout("monitor", null));
        assertThat(failure).contains("cluster privilege 'monitor'", "elasticsearch.durability");
    }

    @Test
    void withoutTheWritePrivilegesTheJobEndsOnceNamingThem(KafkaBroker kafka) throws Exception {
        String index = index();
        es.http()
                .send("PUT", "/" + index, "{\"settings\":{\"number_of_shards\":2}}")
                .requireOk("create " + index);
        String failure = failsOnce(kafka, index, es.url(), userWithout(null, List.of("create_doc", "index")));
        assertThat(failure).contains("403", "'index'", index);
    }

    @Test
    void withoutAutoConfigureAMissingIndexEndsTheJobOnceNamingIt(KafkaBroker kafka) throws Exception {
        String failure = failsOnce(kafka, index(), es.url(), userWithout(null, List.of("auto_configure")));
        assertThat(failure).contains("403", "'auto_configure'");
    }

    @Test
    void withoutIndexMonitorTheCheckpointFenceEndsTheJobOnceNamingIt(KafkaBroker kafka) throws Exception {
        String failure = failsOnce(kafka, index(), es.url(), userWithout(null, List.of("monitor")));
        assertThat(failure).contains("checkpoint fence", "index privilege 'monitor'", "elasticsearch.durability");
    }

    @Test
    void withoutMaintenanceAFenceThatMustFlushEndsTheJobOnceNamingIt(KafkaBroker kafka) throws Exception {
        String index = index();
        // A translog synced less often than fence_sync_wait: the fence flushes, which needs 'maintenance'.
        es.http()
                .send(
                        "PUT",
                        "/" + index,
                        "{\"settings\":{\"index.translog.durability\":\"async\",\"index.translog.sync_interval\":\"30s\"}}")
                .requireOk("create " + index);
        String failure = failsOnce(kafka, index, es.url(), userWithout(null, List.of("maintenance")));
        assertThat(failure).contains("checkpoint fence", "'maintenance'");
    }

    @Test
    void withoutViewIndexMetadataShardGroupingIsOffButEveryKeyEndsWithItsLastValue(KafkaBroker kafka) throws Exception {
        String index = index();
        es.http()
                .send("PUT", "/" + index, "{\"settings\":{\"number_of_shards\":2}}")
                .requireOk("create " + index);
        JobClient job = flink.submit(
                config(kafka, index, es.url(), userWithout(null, List.of("view_index_metadata")), ""), index);
        job.getJobExecutionResult().get(3, TimeUnit.MINUTES);
        assertThat(documents(index)).isEqualTo(expected(1));
        // the layout (terms from _cluster/state) is kept for the fence; only the shard prediction goes
        assertThat(logs.text())
                .contains("Shard prediction cannot be trusted for index " + index + ":", "view_index_metadata");
    }

    @Test
    void withoutManageIndexTemplatesARouteWithATemplateIsRefusedAtStartNamingIt(KafkaBroker kafka) throws Exception {
        String credentials = userWithout("manage_index_templates", null);
        KesConfig config = config(kafka, index(), es.url(), credentials, ", index_template: {shards: 1, replicas: 0}");
        try {
            flink.submit(config, "kes-secured-template");
            throw new AssertionError("the job started without the privilege to put its index template");
        } catch (Exception e) {
            assertThat(describe(e)).contains("manage_index_templates");
        }
    }

    // ---- a key revoked while the job runs ----

    @Test
    void anApiKeyRevokedMidStreamFailsTheJobAndANewKeyWithRestoreLatestEndsWithEveryKeysLastValue(
            KafkaBroker kafka, @TempDir Path home) throws Exception {
        String topic = "secured-restore";
        String index = "secured-restore";
        TestTopics.produce(kafka, topic, Map.of(), changes(0, 2));
        ApiKey first = SecurityApi.createApiKey(
                es.http(),
                "restore-first",
                NodeSecurity.KES_CLUSTER_PRIVILEGES,
                NodeSecurity.KES_INDEX_PRIVILEGES,
                null);
        secrets.add(first.encoded());
        Path flinkConf = KesProcess.localFlinkConf(home);
        try (KesProcess job = KesProcess.binKesRun(
                home,
                "--config",
                unboundedConfig(home, kafka, topic, index, first).toString(),
                "--flink-conf",
                flinkConf.toString())) {
            awaitDocuments(index, expected(1), job);
            awaitNewCheckpoint(home.resolve("checkpoints"), job);
            SecurityApi.invalidateApiKey(es.http(), first);
            TestTopics.produce(kafka, topic, Map.of(), changes(2, 2));
            assertThat(job.awaitExit(java.time.Duration.ofMinutes(2)))
                    .as("the job ended; console:\n%s", job.console())
                    .isTrue();
            assertThat(job.exitCode()).as(job.console()).isEqualTo(1);
            assertThat(job.console()).contains("HTTP 401", "elasticsearch.api_key", "not restarted");
            assertNoSecretIn(job.console(), "the console of bin/kes run");
        }
        ApiKey second = SecurityApi.createApiKey(
                es.http(),
                "restore-second",
                NodeSecurity.KES_CLUSTER_PRIVILEGES,
                NodeSecurity.KES_INDEX_PRIVILEGES,
                null);
        secrets.add(second.encoded());
        try (KesProcess job = KesProcess.binKesRun(
                home,
                "--config",
                unboundedConfig(home, kafka, topic, index, second).toString(),
                "--flink-conf",
                flinkConf.toString(),
                "--restore-latest")) {
            job.awaitConsole("[kes] restoring from", java.time.Duration.ofMinutes(1));
            awaitDocuments(index, expected(3), job);
            String printed = job.console() + Files.readString(home.resolve("logs/kes.log"));
            assertNoSecretIn(printed, "the console and log of bin/kes run");
        }
    }

    private static Path unboundedConfig(Path home, KafkaBroker kafka, String topic, String index, ApiKey key)
            throws Exception {
        Path file = home.resolve("secured-" + key.id() + ".yaml");
        Files.writeString(
                file,
                String.join(
                        "\n",
                        "elasticsearch: {hosts: [\"" + es.url() + "\"], api_key: \"" + key.encoded()
                                + "\", tls_ca_file: \"" + security.caFile() + "\"}",
                        "kafka: {bootstrap_servers: \"" + kafka.bootstrapServers() + "\", group_id: " + index
                                + ", starting_offsets: earliest}",
                        "job: {name: " + index + ", parallelism: 1, checkpoint_interval: 1s}",
                        "routes:",
                        "  - {topics: [" + topic + "], index: " + index + ", id: key}"));
        return file;
    }

    private static void awaitDocuments(String index, Map<String, String> expected, KesProcess job) throws Exception {
        long deadline = System.nanoTime() + java.time.Duration.ofMinutes(2).toNanos();
        Map<String, String> seen = Map.of();
        while (System.nanoTime() < deadline) {
            if (es.http().get("/" + index + "/_count").status() == 200 && (seen = documents(index)).equals(expected)) {
                return;
            }
            Thread.sleep(300);
        }
        throw new AssertionError(index + " holds " + seen + ", not " + expected + "; console:\n" + job.console());
    }

    /** Waits for a completed checkpoint ({@code chk-<n>/_metadata}) newer than those there now. */
    private static void awaitNewCheckpoint(Path dir, KesProcess job) throws Exception {
        java.util.Set<Path> before = checkpoints(dir);
        long deadline = System.nanoTime() + java.time.Duration.ofMinutes(1).toNanos();
        while (System.nanoTime() < deadline) {
            java.util.Set<Path> now = checkpoints(dir);
            now.removeAll(before);
            if (!now.isEmpty()) {
                return;
            }
            Thread.sleep(250);
        }
        throw new AssertionError("no new completed checkpoint under " + dir + "; console:\n" + job.console());
    }

    private static java.util.Set<Path> checkpoints(Path dir) throws Exception {
        if (!Files.isDirectory(dir)) {
            return new java.util.HashSet<>();
        }
        try (var files = Files.walk(dir)) {
            return files.filter(p -> p.getFileName().toString().equals("_metadata"))
                    .collect(java.util.stream.Collectors.toSet());
        }
    }

    // ---- helpers ----

    /** A user whose role has every privilege kes needs but {@code cluster} (or these index privileges). */
    private static String userWithout(String cluster, List<String> indexPrivileges) throws Exception {
        String name = "kes-without-" + names.incrementAndGet();
        List<String> clusterPrivileges = new ArrayList<>(NodeSecurity.KES_CLUSTER_PRIVILEGES);
        clusterPrivileges.remove(cluster);
        List<String> onIndices = new ArrayList<>(NodeSecurity.KES_INDEX_PRIVILEGES);
        if (indexPrivileges != null) {
            onIndices.removeAll(indexPrivileges);
        }
        SecurityApi.createRole(es.http(), name, clusterPrivileges, onIndices);
        String password = "pw-" + name + "-" + System.nanoTime();
        SecurityApi.createUser(es.http(), name, password, name);
        secrets.add(password);
        return "username: " + name + ", password: \"" + password + "\", tls_ca_file: \"" + security.caFile() + "\"";
    }

    private static String index() {
        return "secured-" + names.incrementAndGet();
    }

    private static KesConfig config(
            KafkaBroker kafka, String index, String host, String credentials, String routeExtra) {
        return KesConfig.parse(
                String.join(
                        "\n",
                        "elasticsearch: {hosts: [\"" + host + "\"], " + credentials + "}",
                        "retry: {max_time: 20s}",
                        "kafka: {bootstrap_servers: \"" + kafka.bootstrapServers() + "\", group_id: " + index
                                + ", starting_offsets: earliest}",
                        "job: {name: " + index + ", parallelism: 1, checkpoint_interval: 1s, bounded: true}",
                        "routes:",
                        "  - {topics: [" + TOPIC + "], index: " + index + ", id: key" + routeExtra + "}"),
                Map.of());
    }

    private static void runToEnd(KafkaBroker kafka, String index, String credentials) throws Exception {
        JobClient job = flink.submit(config(kafka, index, es.url(), credentials, ""), index);
        job.getJobExecutionResult().get(3, TimeUnit.MINUTES);
        assertNoSecretIn(flink.everythingShownAbout(job.getJobID()), "Flink's REST API (web UI) for " + index);
        assertNoSecretIn(logs.text(), "the log");
    }

    /**
     * Runs the job, which must fail without a restart (exactly one entry in its exception history),
     * and returns its failure as text (messages of the whole chain).
     */
    private static String failsOnce(KafkaBroker kafka, String index, String host, String credentials) throws Exception {
        JobClient job = flink.submit(config(kafka, index, host, credentials, ""), index);
        String failure;
        try {
            job.getJobExecutionResult().get(2, TimeUnit.MINUTES);
            throw new AssertionError("the job ended without an error");
        } catch (ExecutionException e) {
            failure = describe(e);
        }
        assertThat(flink.failures(job.getJobID()))
                .as("failures of the job (each restart adds one): %s", failure)
                .isEqualTo(1);
        assertThat(failure).contains("SuppressRestartsException");
        assertNoSecretIn(failure, "the failure");
        assertNoSecretIn(flink.everythingShownAbout(job.getJobID()), "Flink's REST API (web UI) for " + index);
        assertNoSecretIn(logs.text(), "the log");
        return failure;
    }

    private static String describe(Throwable t) {
        StringWriter out = new StringWriter();
        t.printStackTrace(new PrintWriter(out));
        return out.toString();
    }

    private static void assertNoSecretIn(String text, String where) {
        for (String secret : secrets) {
            assertThat(text.contains(secret))
                    .as("a secret (%s...) appears in %s", secret.substring(0, 3), where)
                    .isFalse();
        }
    }

    /** id → {@code _source} of every document of the index. */
    private static Map<String, String> documents(String index) throws Exception {
        Http http = es.http();
        http.send("POST", "/" + index + "/_refresh", null).requireOk("refresh");
        JsonNode hits = JSON.readTree(http.get("/" + index + "/_search?size=10000")
                        .requireOk("search")
                        .body())
                .path("hits")
                .path("hits");
        Map<String, String> byId = new TreeMap<>();
        for (JsonNode hit : hits) {
            byId.put(hit.path("_id").asText(), JSON.writeValueAsString(hit.path("_source")));
        }
        return byId;
    }

    private static X509Certificate certificate(Path pem) throws Exception {
        try (InputStream in = Files.newInputStream(pem)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    /**
     * A man in the middle on loopback: presents his own self-signed leaf for localhost next to the
     * real CA's certificate (public, as every client has it), and counts the requests that get through.
     */
    record Attacker(HttpsServer server, AtomicInteger counter) {
        static Attacker presenting(Path dir, X509Certificate realCa) throws Exception {
            Path store = dir.resolve("attacker.p12");
            Process keytool = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "keytool")
                                    .toString(),
                            "-J-XX:TieredStopAtLevel=1",
                            "-genkeypair",
                            "-alias",
                            "attacker",
                            "-keyalg",
                            "EC",
                            "-groupname",
                            "secp256r1",
                            "-dname",
                            "CN=localhost",
                            "-ext",
                            "SAN=dns:localhost",
                            "-validity",
                            "2",
                            "-keystore",
                            store.toString(),
                            "-storetype",
                            "PKCS12",
                            "-storepass",
                            "changeit",
                            "-keypass",
                            "changeit")
                    .redirectErrorStream(true)
                    .start();
            String out = new String(keytool.getInputStream().readAllBytes());
            assertThat(keytool.waitFor()).as(out).isZero();
            KeyStore ks = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(store)) {
                ks.load(in, "changeit".toCharArray());
            }
            PrivateKey key = (PrivateKey) ks.getKey("attacker", "changeit".toCharArray());
            X509Certificate leaf = (X509Certificate) ks.getCertificate("attacker");
            SSLContext ssl = SSLContext.getInstance("TLS");
            ssl.init(
                    new X509ExtendedKeyManager[] {new FixedChain(key, new X509Certificate[] {leaf, realCa})},
                    null,
                    null);
            HttpsServer server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.setHttpsConfigurator(new HttpsConfigurator(ssl));
            AtomicInteger counter = new AtomicInteger();
            server.createContext("/", exchange -> {
                counter.incrementAndGet();
                exchange.sendResponseHeaders(200, -1);
                exchange.close();
            });
            server.start();
            return new Attacker(server, counter);
        }

        int port() {
            return server.getAddress().getPort();
        }

        int requests() {
            return counter.get();
        }

        void stop() {
            server.stop(0);
        }
    }

    /** Presents one key and chain, however wrong: a key store would refuse a chain whose links do not match. */
    private static final class FixedChain extends X509ExtendedKeyManager {
        private final PrivateKey key;
        private final X509Certificate[] chain;

        FixedChain(PrivateKey key, X509Certificate[] chain) {
            this.key = key;
            this.chain = chain;
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return null;
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            return null;
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return new String[] {"server"};
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            return alias(keyType);
        }

        @Override
        public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
            return alias(keyType);
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return chain.clone();
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return key;
        }

        private String alias(String keyType) {
            return keyType.startsWith(key.getAlgorithm()) ? "server" : null;
        }
    }
}
