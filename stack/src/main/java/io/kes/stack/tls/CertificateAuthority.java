package io.kes.stack.tls;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A certificate authority made at run time by the JDK's {@code keytool} (run as a process, as a
 * user would run it), and the PKCS12 stores a TLS server or client needs: a trust store holding
 * the CA, and key stores holding a key and its CA-signed chain. EC keys (P-256), so a handful of
 * stores takes seconds. Every store in one folder shares one password.
 *
 * <p>Each key store is made with {@code -genkeypair}, {@code -certreq} and {@code -gencert};
 * the signed chain and the trust store are written with the JDK's {@link KeyStore} API instead of
 * two more keytool runs (same PKCS12 files, trusted entries flagged as keytool flags them).
 */
public final class CertificateAuthority {

    private static final String CA = "ca";

    private final Path dir;
    private final String password;
    private final int validityDays;
    private final X509Certificate certificate;

    private CertificateAuthority(Path dir, String password, int validityDays, X509Certificate certificate) {
        this.dir = dir;
        this.password = password;
        this.validityDays = validityDays;
        this.certificate = certificate;
    }

    /** A new self-signed CA ({@code BasicConstraints CA:true}) in {@code dir}, with stores protected by {@code password}. */
    public static CertificateAuthority create(Path dir, String dn, String password, int validityDays) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("could not create " + dir, e);
        }
        Path store = dir.resolve(CA + ".p12");
        keytool(
                "-genkeypair",
                "-alias",
                CA,
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                dn,
                "-ext",
                "bc:c",
                "-validity",
                Integer.toString(validityDays),
                "-keystore",
                store.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                password,
                "-keypass",
                password);
        X509Certificate cert;
        try {
            cert = (X509Certificate) load(store, password).getCertificate(CA);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("could not read the CA certificate from " + store, e);
        }
        CertificateAuthority ca = new CertificateAuthority(dir, password, validityDays, cert);
        ca.writePem(dir.resolve(CA + ".pem"));
        return ca;
    }

    public X509Certificate certificate() {
        return certificate;
    }

    /** The CA certificate as PEM (e.g. for a client that takes a CA file). */
    public Path certificatePem() {
        return dir.resolve(CA + ".pem");
    }

    public String password() {
        return password;
    }

    /** A PKCS12 trust store holding only this CA, as a trusted certificate entry. */
    public Path truststore(String fileName) {
        Path path = dir.resolve(fileName);
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setCertificateEntry(CA, certificate);
            save(store, path);
            return path;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("could not write the trust store " + path, e);
        }
    }

    /**
     * A PKCS12 key store {@code <name>.p12} holding a new key under alias {@code name} and its chain
     * (the certificate this CA signs, then the CA's).
     *
     * @param extensions keytool {@code -ext} values for the signed certificate, e.g.
     *                   {@code san=ip:127.0.0.1,dns:localhost} for a server
     */
    public Path issueKeystore(String name, String dn, String... extensions) {
        Path store = dir.resolve(name + ".p12");
        Path csr = dir.resolve(name + ".csr");
        Path signed = dir.resolve(name + ".pem");
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
                "-validity",
                Integer.toString(validityDays),
                "-keystore",
                store.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                password,
                "-keypass",
                password);
        keytool(
                "-certreq",
                "-alias",
                name,
                "-keystore",
                store.toString(),
                "-storepass",
                password,
                "-file",
                csr.toString());
        List<String> gencert = new ArrayList<>(List.of(
                "-gencert",
                "-alias",
                CA,
                "-keystore",
                dir.resolve(CA + ".p12").toString(),
                "-storepass",
                password,
                "-infile",
                csr.toString(),
                "-outfile",
                signed.toString(),
                "-rfc",
                "-validity",
                Integer.toString(validityDays)));
        for (String extension : extensions) {
            gencert.addAll(List.of("-ext", extension));
        }
        keytool(gencert.toArray(String[]::new));
        try (InputStream in = Files.newInputStream(signed)) {
            Certificate leaf = CertificateFactory.getInstance("X.509").generateCertificate(in);
            KeyStore ks = load(store, password);
            Key key = ks.getKey(name, password.toCharArray());
            ks.setKeyEntry(name, key, password.toCharArray(), new Certificate[] {leaf, certificate});
            save(ks, store);
            return store;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("could not put the signed chain of " + name + " into " + store, e);
        }
    }

    private void writePem(Path path) {
        try {
            String base64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                    .encodeToString(certificate.getEncoded());
            Files.writeString(path, "-----BEGIN CERTIFICATE-----\n" + base64 + "\n-----END CERTIFICATE-----\n");
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("could not write " + path, e);
        }
    }

    private void save(KeyStore store, Path path) throws IOException, GeneralSecurityException {
        try (OutputStream out = Files.newOutputStream(path)) {
            store.store(out, password.toCharArray());
        }
    }

    private static KeyStore load(Path path, String password) {
        try (InputStream in = Files.newInputStream(path)) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, password.toCharArray());
            return ks;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("could not read " + path, e);
        }
    }

    private static void keytool(String... args) {
        // A short-lived JVM: the optimizing compiler and the parallel GC only slow its start.
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-J-XX:TieredStopAtLevel=1",
                "-J-XX:+UseSerialGC"));
        command.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException("keytool " + args[0] + " failed: " + out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not run keytool", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running keytool", e);
        }
    }
}
