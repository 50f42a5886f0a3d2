package io.kes.jobs.decode.registry;

import io.kes.jobs.config.RegistrySettings;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * GETs from a schema registry as users run them: several URLs (tried in turn, starting with the one
 * that answered last), basic auth or a bearer token, TLS trusting the user's CA. A 5xx answer or an
 * I/O error moves on to the next URL; after every URL failed, the next round waits a growing pause,
 * {@code attempts} rounds in all. The URLs hold no credentials (the config refuses them), so
 * messages may name them.
 *
 * <p>A plain {@link HttpURLConnection}: the JDK's {@code HttpClient} leaves a thread in native code
 * that holds the JVM's exit back by up to 300 ms.
 */
public final class RegistryClient {

    /** The registry's answer: HTTP status, body, and the URL asked (without credentials). */
    public record Answer(int statusCode, String body, String url) {}

    /** One registry URL (never with credentials: the config refuses them) and the Authorization header to send. */
    private record Endpoint(String base, String authorization) {}

    private final List<Endpoint> endpoints = new ArrayList<>();
    private final SSLSocketFactory tls;
    private final int attempts;
    private final Duration firstBackoff;
    private int current;

    public RegistryClient(String urls, RegistrySettings settings, int attempts, Duration firstBackoff) {
        for (String url : urls.split(",")) {
            String base = url.trim().endsWith("/")
                    ? url.trim().substring(0, url.trim().length() - 1)
                    : url.trim();
            endpoints.add(new Endpoint(base, settings.authorization()));
        }
        this.tls = settings.caPem() == null ? null : trusting(settings.caPem());
        this.attempts = attempts;
        this.firstBackoff = firstBackoff;
    }

    /** The registry's URLs, as messages may show them. */
    public String shown() {
        return String.join(", ", endpoints.stream().map(Endpoint::base).toList());
    }

    /** @throws IllegalStateException when no URL answered below 500 in {@code attempts} rounds */
    public Answer get(String path) {
        String last = null;
        Duration pause = firstBackoff;
        for (int attempt = 1; attempt <= attempts; attempt++) {
            for (int tried = 0; tried < endpoints.size(); tried++) {
                Endpoint endpoint = endpoints.get(current);
                String url = endpoint.base() + path;
                try {
                    HttpURLConnection connection =
                            (HttpURLConnection) URI.create(url).toURL().openConnection();
                    if (tls != null && connection instanceof HttpsURLConnection https) {
                        https.setSSLSocketFactory(tls);
                    }
                    connection.setConnectTimeout(5_000);
                    connection.setReadTimeout(10_000);
                    connection.setRequestProperty("Accept", "application/vnd.schemaregistry.v1+json, application/json");
                    if (endpoint.authorization() != null) {
                        connection.setRequestProperty("Authorization", endpoint.authorization());
                    }
                    int status = connection.getResponseCode();
                    InputStream stream = status < 400 ? connection.getInputStream() : connection.getErrorStream();
                    String body;
                    try (InputStream in = stream) {
                        body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
                    }
                    if (status < 500) {
                        return new Answer(status, body, url);
                    }
                    last = where(url) + "HTTP " + status + " " + abbreviate(body);
                } catch (IOException e) {
                    last = where(url)
                            + e.getClass().getSimpleName()
                            + (e.getMessage() == null ? "" : ": " + e.getMessage());
                }
                current = (current + 1) % endpoints.size();
            }
            if (attempt < attempts) {
                try {
                    Thread.sleep(pause.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while fetching a schema from " + shown(), e);
                }
                pause = pause.multipliedBy(2);
            }
        }
        throw new IllegalStateException("schema_registry_unreachable: the schema registry at " + shown()
                + " did not answer GET "
                + (endpoints.size() == 1 ? endpoints.get(0).base() + path : path + " at any of its URLs")
                + " after " + attempts + " attempts (last: " + last + "); the job fails and restarts from its last "
                + "checkpoint, so no record is lost. Check schema_registry_url, and schema_registry.tls_ca_file "
                + "for a registry on https");
    }

    /** With several URLs, which one a failure came from. */
    private String where(String url) {
        return endpoints.size() == 1 ? "" : url + ": ";
    }

    private static SSLSocketFactory trusting(String caPem) {
        try {
            KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
            trusted.load(null, null);
            int i = 0;
            for (Certificate ca : CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(caPem.getBytes(StandardCharsets.US_ASCII)))) {
                trusted.setCertificateEntry("ca-" + i++, ca);
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context.getSocketFactory();
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("schema_registry.tls_ca_file could not be made a trust store: " + e, e);
        }
    }

    public static String abbreviate(String s) {
        if (s == null) {
            return "";
        }
        return s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }
}
