package io.kes.stack;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;

/**
 * The TLS files of a secured node in its {@code config/certs}: {@code ca.crt}, the CA made at
 * first start; {@code node.crt} and {@code node.key}, the node's HTTP certificate signed by it.
 *
 * <p>They come from the JDK's keytool (one short JVM per step; the integ-test-zip's
 * {@code elasticsearch-certutil} does the same in two CLI runs that take 5 s of CPU each). The node
 * certificate names only {@code localhost} (no IP address): connecting by {@code 127.0.0.1} is a
 * host name mismatch, which tests use. Its certificate file holds the CA too, so the node sends
 * the CA in its chain, which fingerprint pinning needs.
 */
final class NodeCertificates {

    private final Path configDir;

    NodeCertificates(Path configDir) {
        this.configDir = configDir;
    }

    /** The PEM file of the CA that signed the node's HTTP certificate. */
    Path caFile() {
        return configDir.resolve("certs/ca.crt");
    }

    boolean made() {
        return Files.exists(caFile());
    }

    /** SHA-256 of the CA certificate, hex. */
    String caFingerprint() throws IOException {
        return sha256(readCertificate(caFile()));
    }

    /**
     * Makes the CA (EC P-256, CA:true) and a node certificate for {@code localhost} signed by it,
     * as PEM files ES reads. {@code pass} protects keytool's temporary stores, deleted after.
     */
    void make(String pass) throws IOException {
        Path certs = Files.createDirectories(configDir.resolve("certs"));
        Path work = Files.createDirectories(configDir.getParent().resolve("tmp/keytool"));
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
        CliTool.await(p, "keytool " + args[0]);
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
}
