package io.kes.stack;

import io.kes.stack.tls.CertificateAuthority;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The secured listeners of a {@link KafkaBroker} built with {@link KafkaBroker.Builder#secured()},
 * and everything a client needs to use them:
 * <ul>
 *   <li>{@code SASL_SSL}: TLS (server certificate only) and SCRAM-SHA-512, user {@link #scramUser()};</li>
 *   <li>{@code SSL} with client authentication required (mTLS): the client presents
 *       {@link #clientKeystore()}, signed by the same CA as the broker's certificate.</li>
 * </ul>
 * The broker keeps a {@code PLAINTEXT} listener on 127.0.0.1 for its own controller traffic and for
 * test set-up ({@link KafkaBroker#bootstrapServers()}: topics, admin); tests of security connect
 * to the secured listeners only.
 *
 * <p>A new CA, broker and client certificates (keytool, see {@link CertificateAuthority}) and new
 * random passwords are made at each first start of a broker; the SCRAM user is written into the
 * metadata log when the storage is formatted ({@code kafka-storage format --add-scram}), so it
 * exists before the broker accepts its first connection. Passwords never appear in
 * {@link #toString()}.
 */
public final class KafkaSecurity {

    public static final String SCRAM_MECHANISM = "SCRAM-SHA-512";
    public static final String SCRAM_USER = "kes";
    /** The mTLS client's distinguished name (its Kafka principal is {@code User:<this>}). */
    public static final String CLIENT_DN = "CN=kes-client,O=kes";

    private static final SecureRandom RANDOM = new SecureRandom();

    private final int saslSslPort;
    private final int mtlsPort;
    private final CertificateAuthority ca;
    private final Path truststore;
    private final Path brokerKeystore;
    private final Path clientKeystore;
    private final String scramPassword;

    private KafkaSecurity(
            int saslSslPort,
            int mtlsPort,
            CertificateAuthority ca,
            Path truststore,
            Path brokerKeystore,
            Path clientKeystore,
            String scramPassword) {
        this.saslSslPort = saslSslPort;
        this.mtlsPort = mtlsPort;
        this.ca = ca;
        this.truststore = truststore;
        this.brokerKeystore = brokerKeystore;
        this.clientKeystore = clientKeystore;
        this.scramPassword = scramPassword;
    }

    /** New certificates and passwords in {@code dir}. */
    static KafkaSecurity generate(Path dir, int saslSslPort, int mtlsPort) {
        CertificateAuthority ca = CertificateAuthority.create(dir, "CN=kes-test-ca,O=kes", randomSecret(), 7);
        // Clients check the broker's name against the address they dial (ssl.endpoint.identification.algorithm=https).
        Path broker = ca.issueKeystore("broker", "CN=localhost,O=kes", "san=ip:127.0.0.1,dns:localhost");
        Path client = ca.issueKeystore("client", CLIENT_DN);
        return new KafkaSecurity(
                saslSslPort, mtlsPort, ca, ca.truststore("truststore.p12"), broker, client, randomSecret());
    }

    private static String randomSecret() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes); // hex: nothing to quote in JAAS or keytool arguments
    }

    public String saslSslBootstrapServers() {
        return "127.0.0.1:" + saslSslPort;
    }

    public String mtlsBootstrapServers() {
        return "127.0.0.1:" + mtlsPort;
    }

    /** PKCS12, holding the CA that signed the broker's and the client's certificates. */
    public Path truststore() {
        return truststore;
    }

    public String truststorePassword() {
        return ca.password();
    }

    /** PKCS12, the mTLS client's key and chain (store and key password: {@link #clientKeystorePassword()}). */
    public Path clientKeystore() {
        return clientKeystore;
    }

    public String clientKeystorePassword() {
        return ca.password();
    }

    /** The CA certificate as PEM. */
    public Path caCertificatePem() {
        return ca.certificatePem();
    }

    public String scramUser() {
        return SCRAM_USER;
    }

    public String scramPassword() {
        return scramPassword;
    }

    /** Kafka client properties for the SASL_SSL listener as {@code user}/{@code password} (pass a wrong one to test refusals). */
    public Map<String, String> saslSslClientProperties(String user, String password) {
        Map<String, String> props = new LinkedHashMap<>();
        props.put("bootstrap.servers", saslSslBootstrapServers());
        props.put("security.protocol", "SASL_SSL");
        props.put("sasl.mechanism", SCRAM_MECHANISM);
        props.put("sasl.jaas.config", scramJaasConfig(user, password));
        props.putAll(trustProperties());
        return props;
    }

    public Map<String, String> saslSslClientProperties() {
        return saslSslClientProperties(SCRAM_USER, scramPassword);
    }

    /** Kafka client properties for the mTLS listener, presenting {@link #clientKeystore()}. */
    public Map<String, String> mtlsClientProperties() {
        Map<String, String> props = new LinkedHashMap<>();
        props.put("bootstrap.servers", mtlsBootstrapServers());
        props.put("security.protocol", "SSL");
        props.putAll(trustProperties());
        props.put("ssl.keystore.location", clientKeystore.toString());
        props.put("ssl.keystore.type", "PKCS12");
        props.put("ssl.keystore.password", clientKeystorePassword());
        props.put("ssl.key.password", clientKeystorePassword());
        return props;
    }

    private Map<String, String> trustProperties() {
        return Map.of(
                "ssl.truststore.location",
                truststore.toString(),
                "ssl.truststore.type",
                "PKCS12",
                "ssl.truststore.password",
                truststorePassword());
    }

    /** The {@code sasl.jaas.config} value of a SCRAM client. */
    public static String scramJaasConfig(String user, String password) {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user + "\" password=\""
                + password + "\";";
    }

    /** The listeners this adds to the broker's {@code listeners} and {@code advertised.listeners}. */
    String listeners() {
        return "SASL_SSL://127.0.0.1:" + saslSslPort + ",SSL://127.0.0.1:" + mtlsPort;
    }

    /** The broker's settings for both listeners (server.properties lines). */
    Map<String, String> brokerSettings() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("sasl.enabled.mechanisms", SCRAM_MECHANISM);
        // No username/password here: brokers talk to each other over PLAINTEXT; the module only checks clients.
        settings.put(
                "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required;");
        settings.put("listener.name.ssl.ssl.client.auth", "required");
        settings.put("ssl.keystore.location", brokerKeystore.toString());
        settings.put("ssl.keystore.type", "PKCS12");
        settings.put("ssl.keystore.password", ca.password());
        settings.put("ssl.key.password", ca.password());
        settings.put("ssl.truststore.location", truststore.toString());
        settings.put("ssl.truststore.type", "PKCS12");
        settings.put("ssl.truststore.password", ca.password());
        return settings;
    }

    /** {@code kafka-storage format --add-scram} argument creating the SCRAM user. */
    String scramCredentialArgument() {
        return SCRAM_MECHANISM + "=[name=" + SCRAM_USER + ",password=" + scramPassword + "]";
    }

    @Override
    public String toString() {
        return "Kafka SASL_SSL (" + SCRAM_MECHANISM + ", user " + SCRAM_USER + ") at " + saslSslBootstrapServers()
                + ", mTLS at " + mtlsBootstrapServers() + ", trust store " + truststore;
    }
}
