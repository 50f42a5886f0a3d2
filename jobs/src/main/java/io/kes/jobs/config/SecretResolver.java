package io.kes.jobs.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Resolves {@code ${ENV_VAR}}, {@code ${ENV_VAR:-default}} and {@code ${file:/path/to/secret}} in
 * config values, so passwords and API keys can come from the environment or a mounted secret.
 */
final class SecretResolver {

    private static final Pattern REFERENCE = Pattern.compile("\\$\\{([^}]+)}");

    private final Map<String, String> env;

    SecretResolver(Map<String, String> env) {
        this.env = env;
    }

    String resolve(String key, String value) {
        if (value == null || !value.contains("${")) {
            return value;
        }
        Matcher m = REFERENCE.matcher(value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(lookup(key, m.group(1))));
        }
        m.appendTail(out);
        return out.toString();
    }

    private String lookup(String key, String reference) {
        if (reference.startsWith("file:")) {
            Path file = Path.of(reference.substring("file:".length()));
            try {
                return Files.readString(file).strip();
            } catch (IOException e) {
                throw new ConfigException(
                        key + " refers to the file " + file + ", which cannot be read: " + e.getMessage());
            }
        }
        String name = reference;
        String fallback = null;
        int dash = reference.indexOf(":-");
        if (dash >= 0) {
            name = reference.substring(0, dash);
            fallback = reference.substring(dash + 2);
        }
        String value = env.get(name);
        if (value == null) {
            if (fallback != null) {
                return fallback;
            }
            throw new ConfigException(key + " refers to the environment variable " + name + ", which is not set");
        }
        return value;
    }
}
