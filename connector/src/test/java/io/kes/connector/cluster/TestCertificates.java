package io.kes.connector.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * Certificates made by the JDK's keytool, run as a process: key pairs in PKCS12 files, CA-signed
 * certificates through {@code -certreq}/{@code -gencert}. EC keys, so a test needs seconds, not
 * minutes, for a handful of them.
 */
final class TestCertificates {

    static final String PASSWORD = "changeit";

    /** A key pair and its certificate. */
    record Identity(PrivateKey key, X509Certificate certificate) {}

    private final Path dir;
    private final String keytool =
            Path.of(System.getProperty("java.home"), "bin", "keytool").toString();

    TestCertificates(Path dir) {
        this.dir = dir;
    }

    /** A CA: self-signed, basic constraints CA:true. */
    Identity ca(String name, String dn) throws Exception {
        return selfSigned(name, dn, "bc:c");
    }

    /** A self-signed certificate, e.g. a node's own or an attacker's; {@code extension} as keytool's -ext. */
    Identity selfSigned(String name, String dn, String extension) throws Exception {
        Path store = store(name);
        keytool(
                "-genkeypair",
                "-alias",
                name,
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                dn,
                "-ext",
                extension,
                "-validity",
                "2",
                "-keystore",
                store.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                PASSWORD,
                "-keypass",
                PASSWORD);
        KeyStore ks = load(store);
        return new Identity(
                (PrivateKey) ks.getKey(name, PASSWORD.toCharArray()), (X509Certificate) ks.getCertificate(name));
    }

    /** A new certificate for {@code subject}'s key, signed by {@code issuer} (both made here). */
    X509Certificate sign(String subject, String issuer, String extension) throws Exception {
        Path csr = dir.resolve(subject + "-by-" + issuer + ".csr");
        Path pem = dir.resolve(subject + "-by-" + issuer + ".pem");
        keytool(
                "-certreq",
                "-alias",
                subject,
                "-keystore",
                store(subject).toString(),
                "-storepass",
                PASSWORD,
                "-file",
                csr.toString());
        keytool(
                "-gencert",
                "-alias",
                issuer,
                "-keystore",
                store(issuer).toString(),
                "-storepass",
                PASSWORD,
                "-infile",
                csr.toString(),
                "-outfile",
                pem.toString(),
                "-rfc",
                "-ext",
                extension,
                "-validity",
                "2");
        try (InputStream in = Files.newInputStream(pem)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    /** Writes a certificate as PEM. */
    Path pem(String file, X509Certificate cert) throws Exception {
        Path path = dir.resolve(file);
        String base64 = java.util.Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(cert.getEncoded());
        Files.writeString(path, "-----BEGIN CERTIFICATE-----\n" + base64 + "\n-----END CERTIFICATE-----\n");
        return path;
    }

    /**
     * A server TLS context presenting exactly this chain, however wrong: a key store would refuse to
     * hold a chain whose links do not match, and a forged chain is what a man in the middle sends.
     */
    static SSLContext serverPresenting(PrivateKey key, X509Certificate... chain) throws Exception {
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(new FixedKeyManager[] {new FixedKeyManager(key, chain)}, null, null);
        return ssl;
    }

    private Path store(String name) {
        return dir.resolve(name + ".p12");
    }

    private static KeyStore load(Path store) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, PASSWORD.toCharArray());
        }
        return ks;
    }

    private void keytool(String... args) throws Exception {
        // A short-lived JVM: skip the optimizing compiler and the parallel GC, which only slow its start.
        List<String> command = new ArrayList<>(List.of(keytool, "-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(String.join(" ", command) + "\n" + out).isZero();
    }

    /** Presents one key and chain, whatever the client asks for. */
    private static final class FixedKeyManager extends X509ExtendedKeyManager {
        private final PrivateKey key;
        private final X509Certificate[] chain;

        FixedKeyManager(PrivateKey key, X509Certificate[] chain) {
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
            return serverAlias(keyType);
        }

        @Override
        public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
            return serverAlias(keyType);
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return chain.clone();
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return key;
        }

        private String serverAlias(String keyType) {
            return keyType.startsWith(key.getAlgorithm()) ? "server" : null;
        }
    }
}
