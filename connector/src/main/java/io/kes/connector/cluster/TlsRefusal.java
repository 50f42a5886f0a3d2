package io.kes.connector.cluster;

import io.kes.connector.SinkSettings;
import java.security.cert.CertificateException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * Whether a failed request was refused by kes's own TLS checks: the server's certificate does not
 * validate against the configured trust, or does not name the host kes connected to. Either way
 * kes sent nothing (no credentials) and no retry or restart changes the certificate it is shown:
 * a man in the middle, or a setting to fix. Other connection failures stay retryable.
 */
final class TlsRefusal {

    private TlsRefusal() {}

    /** The message for a TLS refusal somewhere in {@code failure}'s causes, or null when it is none. */
    static String describe(Throwable failure, SinkSettings settings) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SSLPeerUnverifiedException) {
                return "Elasticsearch's TLS certificate does not name the host kes connected to (" + t.getMessage()
                        + "), so kes did "
                        + "not send anything: list the node in elasticsearch.hosts by a name its certificate holds (a subject "
                        + "alternative name), or reissue the certificate with that name.";
            }
            if (t instanceof SSLHandshakeException && hasCause(t, CertificateException.class)) {
                String trust = settings.tlsFingerprint() != null
                        ? "elasticsearch.tls_fingerprint"
                        : settings.tlsCaFile() != null
                                ? "elasticsearch.tls_ca_file"
                                : "the JVM's default trust store (set elasticsearch.tls_ca_file)";
                return "Elasticsearch's TLS certificate is not trusted by " + trust + ", so kes did not send anything: "
                        + firstCertificateProblem(t)
                        + ". Set elasticsearch.tls_ca_file to the CA that signed the node's HTTP certificate or "
                        + "elasticsearch.tls_fingerprint to its SHA-256 fingerprint; if you did, something else answers at "
                        + "elasticsearch.hosts.";
            }
        }
        return null;
    }

    private static boolean hasCause(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }

    /** The outermost certificate complaint: kes's fingerprint check says more than the PKIX one beneath it. */
    private static String firstCertificateProblem(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof CertificateException) {
                return c.getMessage();
            }
        }
        return t.getMessage();
    }
}
