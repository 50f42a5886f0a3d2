package io.kes.jobs.migrate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * A Kafka Connect connector's configuration: the flat string map that {@code GET
 * /connectors/NAME/config} returns, the {@code {"name": ..., "config": {...}}} body that creates
 * a connector, or a {@code .properties} file as {@code connect-standalone} takes it. Values are read
 * as Connect reads them (lists comma-separated, booleans case-insensitive), with the connector's
 * defaults where a key is absent.
 */
final class ConnectConfig {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<String, String> values;

    ConnectConfig(Map<String, String> values) {
        this.values = new LinkedHashMap<>(values);
    }

    static ConnectConfig read(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new MigrationException("cannot read " + file.toAbsolutePath() + ": " + e.getMessage()
                    + "; pass the file that `curl http://CONNECT:8083/connectors/NAME/config` wrote");
        }
        return text.stripLeading().startsWith("{") ? parseJson(text) : parseProperties(text);
    }

    static ConnectConfig parseJson(String text) {
        JsonNode root;
        try {
            root = JSON.readTree(text);
        } catch (IOException e) {
            throw new MigrationException("the connector file is not valid JSON: "
                    + e.getMessage().lines().findFirst().orElse(""));
        }
        if (root == null || !root.isObject()) {
            throw new MigrationException("the connector file must be a JSON object: the connector's config map "
                    + "(GET /connectors/NAME/config) or {\"name\": ..., \"config\": {...}}");
        }
        Map<String, String> values = new LinkedHashMap<>();
        JsonNode config = root;
        if (root.has("config") && root.get("config").isObject()) {
            config = root.get("config");
            if (root.hasNonNull("name")) {
                values.put("name", root.get("name").asText());
            }
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = config.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getValue().isContainerNode()) {
                throw new MigrationException("connector option " + e.getKey() + " is a JSON "
                        + e.getValue().getNodeType().name().toLowerCase()
                        + ": Connect options are strings; pass the connector's config map");
            }
            values.put(e.getKey(), e.getValue().isNull() ? null : e.getValue().asText());
        }
        return new ConnectConfig(values);
    }

    static ConnectConfig parseProperties(String text) {
        Properties properties = new Properties();
        try {
            properties.load(new StringReader(text));
        } catch (IOException | IllegalArgumentException e) {
            throw new MigrationException("the connector file is not a valid .properties file: " + e.getMessage());
        }
        // Properties forgets the order; keep the file's, so the comments follow it.
        Map<String, String> values = new LinkedHashMap<>();
        for (String line : text.split("\\R")) {
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("#") || t.startsWith("!")) {
                continue;
            }
            String key = t.split("\\s*[=:\\s]", 2)[0].replace("\\", "");
            if (properties.containsKey(key)) {
                values.put(key, properties.getProperty(key));
            }
        }
        properties.stringPropertyNames().forEach(k -> values.putIfAbsent(k, properties.getProperty(k)));
        return new ConnectConfig(values);
    }

    Map<String, String> values() {
        return values;
    }

    boolean has(String key) {
        String v = values.get(key);
        return v != null && !v.isBlank();
    }

    String get(String key, String defaultValue) {
        return has(key) ? values.get(key).trim() : defaultValue;
    }

    boolean bool(String key, boolean defaultValue) {
        if (!has(key)) {
            return defaultValue;
        }
        String v = get(key, "").toLowerCase();
        if (!v.equals("true") && !v.equals("false")) {
            throw new MigrationException(key + " must be true or false, got '" + values.get(key) + "'");
        }
        return v.equals("true");
    }

    long number(String key, long defaultValue) {
        if (!has(key)) {
            return defaultValue;
        }
        try {
            return Long.parseLong(get(key, ""));
        } catch (NumberFormatException e) {
            throw new MigrationException(key + " must be a whole number, got '" + values.get(key) + "'");
        }
    }

    /** A Connect LIST: comma-separated, blanks dropped. */
    List<String> list(String key) {
        if (!has(key)) {
            return List.of();
        }
        List<String> items = new ArrayList<>();
        Arrays.stream(values.get(key).split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .forEach(items::add);
        return items;
    }

    /** A choice, case-insensitive as Connect's enum options are, lowercased. */
    String choice(String key, String defaultValue, List<String> allowed) {
        String v = get(key, defaultValue).toLowerCase();
        if (!allowed.contains(v)) {
            throw new MigrationException(
                    key + " must be one of " + String.join(", ", allowed) + ", got '" + values.get(key) + "'");
        }
        return v;
    }
}
