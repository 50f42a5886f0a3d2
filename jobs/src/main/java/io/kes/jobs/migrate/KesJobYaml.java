package io.kes.jobs.migrate;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The kes job a migration builds, rendered as the YAML {@code bin/kes run --config} reads (see
 * docs/config-reference.md): sections in the reference's order, every string double-quoted (JSON
 * escaping is valid YAML, so no value can change meaning), and above them one comment line per
 * Connect setting saying what became of it.
 */
final class KesJobYaml {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> SECTIONS =
            List.of("elasticsearch", "bulk", "retry", "kafka", "schema_registry", "routes", "errors", "job");

    private final Map<String, Map<String, Object>> sections = new LinkedHashMap<>();
    private final List<Map<String, Object>> routes = new ArrayList<>();
    private final List<String> header = new ArrayList<>();

    KesJobYaml() {
        for (String s : SECTIONS) {
            sections.put(s, new LinkedHashMap<>());
        }
    }

    /** Sets {@code section.key}, e.g. {@code set("bulk", "max_docs", 500)}; a {@code Map} value is a nested block. */
    void set(String section, String key, Object value) {
        Map<String, Object> s = sections.get(section);
        if (s == null) {
            throw new IllegalArgumentException("no section " + section);
        }
        s.put(key, value);
    }

    Object get(String section, String key) {
        return sections.get(section).get(key);
    }

    /** {@code kafka.properties}: Kafka client settings passed through as they are. */
    @SuppressWarnings("unchecked")
    void kafkaProperty(String key, String value) {
        ((Map<String, Object>) sections.get("kafka").computeIfAbsent("properties", k -> new LinkedHashMap<>()))
                .put(key, value);
    }

    void addRoute(Map<String, Object> route) {
        routes.add(route);
    }

    List<Map<String, Object>> routes() {
        return routes;
    }

    void comment(String line) {
        header.add(line);
    }

    String render() {
        StringBuilder out = new StringBuilder();
        for (String line : header) {
            out.append("# ").append(line).append('\n');
        }
        for (String section : SECTIONS) {
            if (section.equals("routes")) {
                out.append("routes:\n");
                for (Map<String, Object> route : routes) {
                    String first = "  - ";
                    for (Map.Entry<String, Object> e : route.entrySet()) {
                        out.append(first);
                        first = "    ";
                        entry(out, e.getKey(), e.getValue(), "    ");
                    }
                }
                continue;
            }
            Map<String, Object> values = sections.get(section);
            if (values.isEmpty()) {
                continue;
            }
            out.append(section).append(":\n");
            values.forEach((k, v) -> {
                out.append("  ");
                entry(out, k, v, "  ");
            });
        }
        return out.toString();
    }

    private static void entry(StringBuilder out, String key, Object value, String indent) {
        if (value instanceof Map<?, ?> map) {
            out.append(key).append(":\n");
            map.forEach((k, v) -> {
                out.append(indent).append("  ");
                entry(out, String.valueOf(k), v, indent + "  ");
            });
            return;
        }
        out.append(key.matches("[A-Za-z0-9_.-]+") ? key : quote(key))
                .append(": ")
                .append(scalar(value))
                .append('\n');
    }

    private static String scalar(Object value) {
        if (value instanceof List<?> list) {
            List<String> items = new ArrayList<>();
            list.forEach(v -> items.add(scalar(v)));
            return "[" + String.join(", ", items) + "]";
        }
        if (value instanceof Number || value instanceof Boolean) {
            return value.toString();
        }
        return quote(String.valueOf(value));
    }

    private static String quote(String s) {
        try {
            return JSON.writeValueAsString(s);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
