package io.kes.connector.cluster;

import io.kes.connector.SinkSettings;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import org.apache.flink.annotation.Internal;

/**
 * TLS trust for https Elasticsearch endpoints: a CA file (PEM), or the SHA-256 fingerprint of a
 * certificate in the server's chain (what Elasticsearch prints at its first secured start) used as
 * the only trust anchor, or the JVM's default trust store. Host names are still verified by the
 * HTTP client (its default hostname verifier, which {@link RestClients} leaves in place).
 */
@Internal
public final class TlsContexts {

    private TlsContexts() {}

    /** Null when the defaults apply. */
    public static SSLContext forSettings(SinkSettings settings) {
        try {
            if (settings.tlsCaFile() != null) {
                return withTrustManagers(fromCaFile(Path.of(settings.tlsCaFile())));
            }
            if (settings.tlsFingerprint() != null) {
                return withTrustManagers(new TrustManager[] {new FingerprintTrustManager(settings.tlsFingerprint())});
            }
            return null;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException("cannot set up TLS for Elasticsearch: " + e.getMessage(), e);
        }
    }

    private static SSLContext withTrustManagers(TrustManager[] trustManagers) throws GeneralSecurityException {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trustManagers, null);
        return context;
    }

    static TrustManager[] fromCaFile(Path pem) throws GeneralSecurityException, IOException {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        try (InputStream in = Files.newInputStream(pem)) {
            int i = 0;
            for (Certificate cert : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                store.setCertificateEntry("ca-" + i++, cert);
            }
            if (i == 0) {
                throw new CertificateException(pem + " holds no PEM certificate");
            }
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        return factory.getTrustManagers();
    }

    /**
     * Trusts a server whose chain validates (PKIX: signatures, validity, constraints) up to the
     * certificate with this SHA-256 fingerprint, that certificate being the only trust anchor. The
     * pinned certificate is the node's own (self-signed or not) or a CA above it: Elasticsearch
     * prints its HTTP CA's fingerprint at first start. Merely finding the pinned certificate in the
     * chain is not enough: a man in the middle can present his own leaf next to the real, public
     * CA certificate, and would then receive the password or API key.
     *
     * <p>The server has to send the pinned certificate in its chain (Elasticsearch sends its CA),
     * since only its fingerprint is configured. The fingerprint names one certificate, so the trust
     * manager built on it the first time serves every later handshake.
     */
    static final class FingerprintTrustManager implements X509TrustManager {
        private final String fingerprint;
        private volatile X509TrustManager anchoredOnPinned;

        FingerprintTrustManager(String fingerprint) {
            this.fingerprint = fingerprint;
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            X509Certificate pinned = null;
            for (X509Certificate cert : chain) {
                if (fingerprint.equals(sha256(cert))) {
                    pinned = cert;
                    break;
                }
            }
            if (pinned == null) {
                throw new CertificateException("no certificate in Elasticsearch's chain has the SHA-256 fingerprint "
                        + fingerprint + " (elasticsearch.tls_fingerprint); the server presented "
                        + (chain.length > 0 ? sha256(chain[0]) : "no certificate"));
            }
            try {
                anchoredOn(pinned).checkServerTrusted(chain, authType);
            } catch (CertificateException e) {
                throw new CertificateException(
                        "Elasticsearch's certificate " + chain[0].getSubjectX500Principal()
                                + " (SHA-256 " + sha256(chain[0])
                                + ") does not validate against the pinned certificate "
                                + pinned.getSubjectX500Principal() + " (elasticsearch.tls_fingerprint " + fingerprint
                                + "): " + e.getMessage()
                                + ". A chain that merely contains the pinned certificate is not trusted (a man in the middle can show the "
                                + "real CA's certificate beside his own), so kes does not connect. If the node's certificate was reissued "
                                + "under another CA, pin that CA's fingerprint.",
                        e);
            }
        }

        /** PKIX validation, as for a CA file, with the pinned certificate as the one trusted certificate. */
        private X509TrustManager anchoredOn(X509Certificate pinned) throws CertificateException {
            X509TrustManager manager = anchoredOnPinned;
            if (manager == null) {
                try {
                    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
                    store.load(null, null);
                    store.setCertificateEntry("pinned", pinned);
                    TrustManagerFactory factory =
                            TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                    factory.init(store);
                    manager = (X509TrustManager) factory.getTrustManagers()[0];
                } catch (GeneralSecurityException | IOException e) {
                    throw new CertificateException(
                            "cannot set up trust in the pinned certificate: " + e.getMessage(), e);
                }
                anchoredOnPinned = manager;
            }
            return manager;
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            throw new CertificateException("kes does not accept client connections");
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }

        static String sha256(X509Certificate cert) throws CertificateException {
            try {
                return HexFormat.of()
                        .formatHex(MessageDigest.getInstance("SHA-256").digest(cert.getEncoded()));
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new CertificateException(e);
            }
        }
    }
}
