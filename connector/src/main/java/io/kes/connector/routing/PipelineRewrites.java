package io.kes.connector.routing;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Whether an ingest pipeline may move a document away from where kes predicted it: a processor
 * that sets, renames or copies into {@code _index}, {@code _routing} or {@code _id}, a script that
 * touches them, a {@code reroute} or {@code date_index_name} processor, or a field name built from a template (which could
 * be any of them), a {@code csv} target, {@code grok} or {@code dissect} key naming them, or keys
 * put into the document's root ({@code json add_to_root}, {@code kv} without a target). Nested
 * {@code pipeline} and {@code foreach} processors are followed. Deliberately conservative: a
 * false alarm costs single-shard bulks for one index, a miss would let the checkpoint fence check
 * the wrong shard.
 */
final class PipelineRewrites {

    private static final List<String> TARGET_KEYS = List.of("field", "target_field", "target");
    private static final Pattern METADATA_FIELD = Pattern.compile("^_(index|routing|id)$");
    private static final Pattern SCRIPT_TOUCHES = Pattern.compile("_(index|routing|id)\\b");
    /** A grok capture into a metadata field: {@code %{WORD:_routing}}, {@code (?<_id>...)}. */
    private static final Pattern GROK_CAPTURE =
            Pattern.compile("%\\{\\w+:_(index|routing|id)(:\\w+)?}|\\(\\?<_(index|routing|id)>");
    /** A dissect key naming a metadata field, with any modifier: {@code %{_id}}, {@code %{+_index}}, {@code %{_routing->}}. */
    private static final Pattern DISSECT_KEY = Pattern.compile("%\\{[+?*&]?_(index|routing|id)(->)?(/\\d+)?}");

    private static final int MAX_DEPTH = 10;

    private PipelineRewrites() {}

    /**
     * Why {@code pipeline} (a {@code GET _ingest/pipeline/<id>} entry) may move documents, or empty.
     *
     * @param nested the definitions of other pipelines by id (empty when missing)
     */
    static Optional<String> why(String id, JsonNode pipeline, Function<String, Optional<JsonNode>> nested) {
        return why(id, pipeline, nested, 0);
    }

    private static Optional<String> why(
            String id, JsonNode pipeline, Function<String, Optional<JsonNode>> nested, int depth) {
        for (String list : List.of("processors", "on_failure")) {
            for (JsonNode processor : pipeline.path(list)) {
                for (Map.Entry<String, JsonNode> p : processor.properties()) {
                    Optional<String> why = processor(id, p.getKey(), p.getValue(), nested, depth);
                    if (why.isPresent()) {
                        return why;
                    }
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<String> processor(
            String id, String type, JsonNode config, Function<String, Optional<JsonNode>> nested, int depth) {
        if (type.equals("reroute")) {
            return Optional.of("pipeline '" + id + "' has a reroute processor");
        }
        if (type.equals("date_index_name")) {
            // its own "field" is the date it reads; it always sets _index to a date-named index
            return Optional.of("pipeline '" + id + "' has a date_index_name processor (it sets _index)");
        }
        if (type.equals("script")) {
            String source = config.path("source").asText(config.path("inline").asText(""));
            if (config.has("id") || SCRIPT_TOUCHES.matcher(source).find()) {
                return Optional.of("pipeline '" + id + "' has a script that may set _index, _routing or _id");
            }
        }
        for (String key : TARGET_KEYS) {
            String field = config.path(key).asText("");
            if (METADATA_FIELD.matcher(field).matches()) {
                return Optional.of("pipeline '" + id + "' sets " + field + " (" + type + " processor)");
            }
            if (field.contains("{{")) {
                return Optional.of("pipeline '" + id + "' writes a field named by a template (" + type + " " + key
                        + ": " + field + ")");
            }
        }
        for (JsonNode field : config.path("target_fields")) { // csv
            if (METADATA_FIELD.matcher(field.asText("")).matches()
                    || field.asText("").contains("{{")) {
                return Optional.of("pipeline '" + id + "' may set " + field.asText() + " (" + type + " target_fields)");
            }
        }
        if (type.equals("grok")) {
            for (JsonNode pattern : config.path("patterns")) {
                if (GROK_CAPTURE.matcher(pattern.asText("")).find()) {
                    return Optional.of("pipeline '" + id + "' captures into _index, _routing or _id (grok pattern "
                            + pattern.asText() + ")");
                }
            }
        }
        if (type.equals("dissect")
                && DISSECT_KEY.matcher(config.path("pattern").asText("")).find()) {
            return Optional.of("pipeline '" + id + "' dissects into _index, _routing or _id ("
                    + config.path("pattern").asText() + ")");
        }
        if (type.equals("json") && config.path("add_to_root").asBoolean(false)) {
            return Optional.of(
                    "pipeline '" + id + "' adds a parsed JSON field's keys to the document's root (json add_to_root), "
                            + "which may set _index, _routing or _id");
        }
        if (type.equals("kv") && !config.has("target_field")) {
            return Optional.of("pipeline '" + id
                    + "' adds key-value pairs to the document's root (kv without target_field), which "
                    + "may set _index, _routing or _id");
        }
        if (type.equals("foreach")) {
            for (Map.Entry<String, JsonNode> p : config.path("processor").properties()) {
                Optional<String> why = depth >= MAX_DEPTH
                        ? Optional.of("pipeline '" + id + "' nests foreach processors too deep for kes")
                        : processor(id, p.getKey(), p.getValue(), nested, depth + 1);
                if (why.isPresent()) {
                    return why;
                }
            }
        }
        if (type.equals("pipeline")) {
            String name = config.path("name").asText("");
            if (name.contains("{{") || depth >= MAX_DEPTH) {
                return Optional.of("pipeline '" + id + "' calls pipeline '" + name + "', which kes cannot follow");
            }
            Optional<JsonNode> inner = nested.apply(name);
            if (inner.isPresent()) {
                return why(name, inner.get(), nested, depth + 1);
            }
        }
        for (JsonNode handler : config.path("on_failure")) {
            for (Map.Entry<String, JsonNode> p : handler.properties()) {
                Optional<String> why = processor(id, p.getKey(), p.getValue(), nested, depth);
                if (why.isPresent()) {
                    return why;
                }
            }
        }
        return Optional.empty();
    }
}
