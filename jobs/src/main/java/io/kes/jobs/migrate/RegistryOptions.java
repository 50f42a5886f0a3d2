package io.kes.jobs.migrate;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An AvroConverter's schema registry client settings ({@code value.converter.*} or
 * {@code key.converter.*}) as kes's {@code schema_registry} section: basic auth from user info (or
 * in the URL), a static bearer token, a PEM CA. What kes cannot do is refused with what lets the
 * migration through.
 */
final class RegistryOptions {

    private RegistryOptions() {}

    /**
     * The converter's {@code schema.registry.url}s without credentials; credentials found in them (Confluent's
     * {@code basic.auth.credentials.source=URL}, its default) go to {@code settings} as user info.
     */
    static String urls(Migration m, String prefix, Map<String, String> settings) {
        List<String> plain = new ArrayList<>();
        Set<String> userInfos = new LinkedHashSet<>();
        for (String url : m.config.list(prefix + "schema.registry.url")) {
            Matcher credentials = CREDENTIALS.matcher(url);
            if (credentials.find()) {
                userInfos.add(URLDecoder.decode(credentials.group(1), StandardCharsets.UTF_8));
                url = credentials.replaceFirst("://");
            }
            plain.add(url);
        }
        if (userInfos.size() > 1) {
            m.refuse(prefix + "schema.registry.url holds different credentials in its URLs; kes sends one set to "
                    + "every URL of a registry: give them all the same");
        } else if (userInfos.size() == 1 && !settings.containsKey("basic_auth_user_info")) {
            settings.put("basic_auth_user_info", userInfos.iterator().next());
        }
        return String.join(",", plain);
    }

    private static final Pattern CREDENTIALS = Pattern.compile("://([^/@]*)@");

    /** The {@code schema_registry} settings for the converter at {@code prefix} (e.g. {@code value.converter.}). */
    static Map<String, String> of(Migration m, String prefix) {
        ConnectConfig c = m.config;
        Map<String, String> settings = new LinkedHashMap<>();
        if (c.has(prefix + "basic.auth.user.info") || c.has(prefix + "basic.auth.credentials.source")) {
            String source =
                    c.get(prefix + "basic.auth.credentials.source", "URL").toUpperCase(Locale.ROOT);
            switch (source) {
                case "USER_INFO" -> {
                    String userInfo = c.get(prefix + "basic.auth.user.info", "");
                    if (userInfo.matches(".*\\$\\{[A-Za-z0-9_.-]+:[^}]*:[^}]*}.*")) {
                        m.refuse(prefix + "basic.auth.user.info is a Connect config provider reference, which kes "
                                + "cannot resolve: write ${SR_USER_INFO} to read it from the environment, or "
                                + "${file:/path} to read it from a file of its own");
                    } else {
                        settings.put("basic_auth_user_info", userInfo);
                    }
                }
                case "URL" -> {
                    // moved out of schema.registry.url by urls(): kes keeps credentials out of URLs
                }
                default ->
                    m.refuse(prefix + "basic.auth.credentials.source = " + source + ": kes authenticates to the "
                            + "registry with user info (USER_INFO), credentials in the URL (URL) or a static bearer "
                            + "token; set one of those");
            }
        }
        if (c.has(prefix + "bearer.auth.credentials.source") || c.has(prefix + "bearer.auth.token")) {
            String source = c.get(prefix + "bearer.auth.credentials.source", "STATIC_TOKEN")
                    .toUpperCase(Locale.ROOT);
            if (source.equals("STATIC_TOKEN")) {
                settings.put("bearer_token", c.get(prefix + "bearer.auth.token", ""));
            } else {
                m.refuse(prefix + "bearer.auth.credentials.source = " + source + ": kes sends a static bearer "
                        + "token (STATIC_TOKEN with bearer.auth.token) and does not fetch tokens itself; set a token "
                        + "of a lifetime that covers the job, or use basic auth");
            }
        }
        if (c.has(prefix + "schema.registry.ssl.keystore.location")) {
            m.refuse(prefix + "schema.registry.ssl.keystore.location: kes presents no client certificate to the "
                    + "registry; authenticate with basic.auth.user.info or a bearer token");
        }
        String trustStore = c.get(prefix + "schema.registry.ssl.truststore.location", "");
        if (!trustStore.isEmpty()) {
            String type = c.get(prefix + "schema.registry.ssl.truststore.type", "JKS");
            if (type.equalsIgnoreCase("PEM")) {
                settings.put("tls_ca_file", trustStore);
            } else {
                m.refuse(prefix + "schema.registry.ssl.truststore.location = " + trustStore + " is a " + type
                        + " trust store; kes trusts a PEM file with the CA (schema_registry.tls_ca_file). Export the "
                        + "CA: keytool -exportcert -rfc -keystore " + trustStore + " -storetype " + type
                        + " -alias <the CA's alias> -file registry-ca.pem, then set the trust store's location to "
                        + "registry-ca.pem and its type to PEM and migrate again");
            }
        }
        return settings;
    }
}
