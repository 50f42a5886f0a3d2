package io.kes.jobs.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.apache.flink.util.TimeUtils;

/**
 * A section of the YAML config with its path (e.g. {@code routes[0]}), so every error names the
 * exact key. Unknown keys are rejected with a "did you mean" hint; values may come from the
 * environment ({@code ${ENV_VAR}}) or a file ({@code ${file:/path}}) so secrets never have to sit
 * in the YAML.
 */
public final class ConfigNode {

    private final String path;
    private final JsonNode node;
    private final SecretResolver secrets;
    private final ConfigProblems problems;

    ConfigNode(String path, JsonNode node, SecretResolver secrets, ConfigProblems problems) {
        this.path = path;
        this.node = node;
        this.secrets = secrets;
        this.problems = problems;
    }

    /** Where this file's problems are collected: every one is reported, not only the first. */
    ConfigProblems problems() {
        return problems;
    }

    /** {@code read}, or {@code fallback} with the problem kept for the report (see {@link ConfigProblems}). */
    <T> T attempt(java.util.function.Supplier<T> read, T fallback) {
        return problems.attempt(read, fallback);
    }

    /** Whether a misspelt key of this section was taken for {@code key} (its absence is then reported already). */
    boolean misspelt(String key) {
        return problems.wasSuggested(keyPath(key));
    }

    public String path() {
        return path;
    }

    String keyPath(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    /**
     * Reports every key other than {@code allowed}, suggesting the closest allowed one; reading
     * goes on (an unknown key hides nothing else), see {@link ConfigProblems}.
     */
    public ConfigNode allowOnly(Collection<String> allowed) {
        if (node == null || node.isNull()) {
            return this;
        }
        if (!node.isObject()) {
            throw new ConfigException(
                    (path.isEmpty() ? "the config" : path) + " must be a mapping of keys to values, got: " + node);
        }
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!allowed.contains(key)) {
                java.util.Optional<String> closest = DidYouMean.closest(key, allowed);
                closest.ifPresent(s -> problems.suggested(keyPath(s)));
                String hint = closest.map(s -> " Did you mean '" + s + "'?").orElse("");
                problems.add("unknown key '" + keyPath(key) + "'." + hint + " Allowed here: "
                        + String.join(", ", new java.util.TreeSet<>(allowed)));
            }
        }
        return this;
    }

    /** The keys present in this section, in file order. */
    public List<String> keys() {
        List<String> keys = new ArrayList<>();
        if (node != null && node.isObject()) {
            node.fieldNames().forEachRemaining(keys::add);
        }
        return keys;
    }

    public boolean has(String key) {
        return node != null && node.has(key) && !node.get(key).isNull();
    }

    public ConfigNode section(String key) {
        return new ConfigNode(keyPath(key), node == null ? null : node.get(key), secrets, problems);
    }

    public boolean isPresent() {
        return node != null && !node.isNull();
    }

    public List<ConfigNode> list(String key) {
        List<ConfigNode> items = new ArrayList<>();
        if (!has(key)) {
            return items;
        }
        JsonNode value = node.get(key);
        if (!value.isArray()) {
            throw new ConfigException(keyPath(key) + " must be a list, got: " + value);
        }
        for (int i = 0; i < value.size(); i++) {
            items.add(new ConfigNode(keyPath(key) + "[" + i + "]", value.get(i), secrets, problems));
        }
        return items;
    }

    public String string(String key, String defaultValue) {
        if (!has(key)) {
            return defaultValue;
        }
        JsonNode value = node.get(key);
        if (!value.isValueNode()) {
            throw new ConfigException(keyPath(key) + " must be a single value, got: " + value);
        }
        return secrets.resolve(keyPath(key), value.asText());
    }

    public String requiredString(String key, String example) {
        String value = string(key, null);
        if ((value == null || value.isBlank()) && misspelt(key)) {
            throw ConfigException.alreadyReported();
        }
        if (value == null || value.isBlank()) {
            throw new ConfigException(keyPath(key) + " is required, e.g. " + key + ": " + example);
        }
        return value;
    }

    public List<String> strings(String key) {
        if (!has(key)) {
            return List.of();
        }
        JsonNode value = node.get(key);
        List<String> out = new ArrayList<>();
        if (value.isArray()) {
            for (int i = 0; i < value.size(); i++) {
                out.add(secrets.resolve(
                        keyPath(key) + "[" + i + "]", value.get(i).asText()));
            }
        } else {
            for (String part : string(key, "").split(",")) {
                if (!part.isBlank()) {
                    out.add(part.trim());
                }
            }
        }
        return out;
    }

    public int integer(String key, int defaultValue, int min) {
        if (!has(key)) {
            return defaultValue;
        }
        String raw = string(key, null);
        int value;
        try {
            value = Integer.parseInt(raw.trim());
        } catch (NumberFormatException e) {
            throw new ConfigException(keyPath(key) + " must be a whole number, got '" + raw + "'");
        }
        if (value < min) {
            throw new ConfigException(keyPath(key) + " must be at least " + min + ", got " + value);
        }
        return value;
    }

    public boolean bool(String key, boolean defaultValue) {
        if (!has(key)) {
            return defaultValue;
        }
        String raw = string(key, null).trim().toLowerCase();
        return switch (raw) {
            case "true", "yes", "on" -> true;
            case "false", "no", "off" -> false;
            default -> throw new ConfigException(keyPath(key) + " must be true or false, got '" + raw + "'");
        };
    }

    public Duration duration(String key, Duration defaultValue) {
        if (!has(key)) {
            return defaultValue;
        }
        String raw = string(key, null);
        try {
            return TimeUtils.parseDuration(raw.trim());
        } catch (IllegalArgumentException e) {
            throw new ConfigException(keyPath(key) + " must be a duration like 500ms, 10s or 5min, got '" + raw + "'");
        }
    }

    public <E> E choice(String key, E defaultValue, Function<String, E> parse, Set<String> allowed) {
        if (!has(key)) {
            return defaultValue;
        }
        String raw = string(key, null).trim();
        if (!allowed.contains(raw)) {
            String hint = DidYouMean.closest(raw, allowed)
                    .map(s -> " Did you mean '" + s + "'?")
                    .orElse("");
            throw new ConfigException(keyPath(key) + " must be one of "
                    + String.join(", ", new java.util.TreeSet<>(allowed)) + ", got '" + raw + "'." + hint);
        }
        return parse.apply(raw);
    }
}
