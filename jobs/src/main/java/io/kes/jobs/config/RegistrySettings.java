package io.kes.jobs.config;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateFactory;
import java.util.Base64;
import java.util.Set;

/**
 * {@code schema_registry}: how kes reaches the schema registry of every route that reads from one
 * ({@code format} or {@code key_format} {@code confluent-avro}, {@code protobuf} or
 * {@code json-schema}), as Confluent's serializers are
 * configured: basic auth ({@code basic_auth_user_info} as {@code basic.auth.user.info}, or
 * {@code username} and {@code password}), or a bearer token ({@code bearer_token}); TLS trusting the
 * CA of {@code tls_ca_file} (PEM). Credentials in a registry URL ({@code https://user:pass@host},
 * Confluent's {@code basic.auth.credentials.source=URL}) are refused, as in Elasticsearch's hosts:
 * URLs are printed; {@code bin/kes migrate} moves them here.
 *
 * <p>The CA file is read when the config is loaded, so the task managers need no copy of it. Secrets
 * are never printed: {@link #toString} masks them.
 *
 * @param authorization the HTTP Authorization header to send, or null
 * @param caPem         the CA certificates (PEM) to trust instead of the JVM's, or null
 */
public record RegistrySettings(String authorization, String caPem) implements Serializable {

    public static final RegistrySettings NONE = new RegistrySettings(null, null);

    static final Set<String> KEYS =
            Set.of("basic_auth_user_info", "username", "password", "bearer_token", "tls_ca_file");

    /** The Basic Authorization header of {@code user:password}. */
    public static String basic(String userInfo) {
        return "Basic " + Base64.getEncoder().encodeToString(userInfo.getBytes(StandardCharsets.UTF_8));
    }

    static RegistrySettings from(ConfigNode node) {
        if (!node.isPresent()) {
            return NONE;
        }
        node.allowOnly(KEYS);
        String userInfo = node.string("basic_auth_user_info", null);
        String user = node.string("username", null);
        String token = node.string("bearer_token", null);
        int ways =
                (userInfo != null ? 1 : 0) + (user != null || node.has("password") ? 1 : 0) + (token != null ? 1 : 0);
        if (ways > 1) {
            throw new ConfigException(node.path() + " takes one of basic_auth_user_info, username/password or "
                    + "bearer_token: the registry accepts one way to authenticate per request");
        }
        String authorization = null;
        if (userInfo != null) {
            if (userInfo.indexOf(':') < 0) {
                throw new ConfigException(
                        node.keyPath("basic_auth_user_info")
                                + " must be <user>:<password>, as Confluent's basic.auth.user.info (e.g. \"${SR_USER}:${SR_PASSWORD}\")");
            }
            authorization = basic(userInfo);
        } else if (user != null || node.has("password")) {
            String u = node.requiredString("username", "registry-user");
            authorization = basic(u + ":" + node.requiredString("password", "${SCHEMA_REGISTRY_PASSWORD}"));
        } else if (token != null) {
            authorization = "Bearer " + token;
        }
        String caPem = null;
        String caFile = node.string("tls_ca_file", null);
        if (caFile != null) {
            try {
                caPem = Files.readString(Path.of(caFile));
                if (CertificateFactory.getInstance("X.509")
                        .generateCertificates(new ByteArrayInputStream(caPem.getBytes(StandardCharsets.US_ASCII)))
                        .isEmpty()) {
                    throw new GeneralSecurityException("no certificate in it");
                }
            } catch (IOException e) {
                throw new ConfigException(node.keyPath("tls_ca_file") + " " + caFile + " cannot be read: " + e);
            } catch (GeneralSecurityException e) {
                throw new ConfigException(node.keyPath("tls_ca_file") + " " + caFile
                        + " is not a PEM file of CA certificates (-----BEGIN CERTIFICATE-----): " + e.getMessage());
            }
        }
        return new RegistrySettings(authorization, caPem);
    }

    @Override
    public String toString() {
        return "RegistrySettings[authorization="
                + (authorization == null ? "none" : authorization.split(" ")[0] + " ****") + ", tlsCa="
                + (caPem == null ? "the JVM's" : "a PEM file") + "]";
    }
}
