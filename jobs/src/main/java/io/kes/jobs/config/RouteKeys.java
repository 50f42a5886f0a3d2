package io.kes.jobs.config;

import io.kes.connector.IndexNameTemplate;
import io.kes.jobs.config.Route.IdSpec;
import io.kes.jobs.config.Route.KeyFormat;
import io.kes.jobs.config.Route.ValueFormat;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;

/**
 * The keys of a route that take more than a lookup to read: topics or their pattern, the target,
 * the value format, the id, the pipeline. Each reader throws a {@link ConfigException} that names
 * its key and the fix when the key cannot be read; {@link Route#from} keeps the problem and goes on
 * with the other keys. Checks between keys that were each readable are {@link RouteConflicts}.
 */
final class RouteKeys {

    /** The formats whose values or keys name their schema in a registry. */
    private static final Set<String> REGISTRY_FORMATS = Set.of("confluent-avro", "protobuf", "json-schema");

    private RouteKeys() {}

    static String topicPattern(ConfigNode node, List<String> topics) {
        String pattern = node.string("topic_pattern", null);
        if (topics.isEmpty() == (pattern == null)) {
            if (node.misspelt("topics") || node.misspelt("topic_pattern")) {
                throw ConfigException.alreadyReported();
            }
            throw new ConfigException(node.path()
                    + " needs exactly one of topics (a list) or topic_pattern (a regex), e.g. topics: [app-logs]");
        }
        if (pattern != null) {
            try {
                Pattern.compile(pattern);
            } catch (PatternSyntaxException e) {
                throw new ConfigException(node.keyPath("topic_pattern") + " '" + pattern + "' is not a valid regex: "
                        + e.getDescription());
            }
        }
        return pattern;
    }

    static void checkTarget(ConfigNode node, String index, String dataStream) {
        if ((index == null) == (dataStream == null)) {
            if (node.misspelt("index") || node.misspelt("data_stream")) {
                throw ConfigException.alreadyReported();
            }
            throw new ConfigException(
                    node.path() + " needs exactly one of index (an index, alias or name template) or data_stream");
        }
        String target = dataStream != null ? dataStream : index;
        String key = node.keyPath(dataStream != null ? "data_stream" : "index");
        IndexNameTemplate template;
        try {
            template = IndexNameTemplate.parse(target);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(key + " " + e.getMessage());
        }
        String literal = template.fill("x");
        if (!literal.equals(literal.toLowerCase())
                || literal.startsWith("_")
                || literal.startsWith("-")
                || literal.contains(" ")
                || literal.contains(",")
                || literal.contains("*")) {
            throw new ConfigException(
                    key + " '" + target
                            + "' is not a valid Elasticsearch index name: use lowercase, no spaces, commas or *, not starting with _ or -");
        }
    }

    static ValueFormat valueFormat(ConfigNode node) {
        ValueFormat.Kind kind = node.choice(
                "format",
                ValueFormat.Kind.JSON,
                s -> ValueFormat.Kind.valueOf(s.toUpperCase().replace('-', '_')),
                Set.of("json", "connect-json", "string", "avro", "confluent-avro", "protobuf", "json-schema"));
        if (kind != ValueFormat.Kind.AVRO && node.has("avro_schema_file")) {
            throw new ConfigException(
                    node.keyPath("avro_schema_file") + " only applies to format: avro (this route's format is "
                            + kind.name().toLowerCase().replace('_', '-') + ")");
        }
        if (!kind.fromARegistry()
                && node.has("schema_registry_url")
                && !REGISTRY_FORMATS.contains(node.string("key_format", ""))) {
            throw new ConfigException(node.keyPath("schema_registry_url")
                    + " only applies to a format or key_format that reads a schema registry (confluent-avro, protobuf, "
                    + "json-schema; this route's format is "
                    + kind.name().toLowerCase().replace('_', '-') + ")");
        }
        if (kind != ValueFormat.Kind.STRING && node.has("string_field")) {
            throw new ConfigException(node.keyPath("string_field") + " only applies to format: string (this route's "
                    + "format is " + kind.name().toLowerCase().replace('_', '-') + ")");
        }
        switch (kind) {
            case STRING -> {
                String field = node.string("string_field", "message");
                if (field.isBlank()) {
                    throw new ConfigException(node.keyPath("string_field")
                            + " must name the field that holds each value's text, e.g. message (the default)");
                }
                return new ValueFormat(kind, null, null, field);
            }
            case CONNECT_JSON -> {
                return new ValueFormat(kind, null, null);
            }
            case AVRO -> {
                Path file = Path.of(node.requiredString(
                        "avro_schema_file", "schemas/order.avsc (the writer schema of the values)"));
                String schemaJson;
                try {
                    schemaJson = Files.readString(file);
                } catch (IOException e) {
                    throw new ConfigException(
                            node.keyPath("avro_schema_file") + " " + file.toAbsolutePath() + " cannot be read: " + e);
                }
                Schema schema;
                try {
                    schema = new Schema.Parser().parse(schemaJson);
                } catch (AvroRuntimeException e) {
                    throw new ConfigException(node.keyPath("avro_schema_file") + " " + file
                            + " is not a valid Avro schema: " + e.getMessage());
                }
                if (schema.getType() != Schema.Type.RECORD && schema.getType() != Schema.Type.MAP) {
                    throw new ConfigException(
                            node.keyPath("avro_schema_file") + " " + file + " must define a record (documents are "
                                    + "JSON objects), got a " + schema.getType().getName());
                }
                return new ValueFormat(kind, schemaJson, null);
            }
            case CONFLUENT_AVRO, PROTOBUF, JSON_SCHEMA -> {
                return new ValueFormat(kind, null, registryUrl(node));
            }
            default -> {
                return ValueFormat.JSON;
            }
        }
    }

    static KeyFormat keyFormat(ConfigNode node) {
        KeyFormat.Kind kind = node.choice(
                "key_format",
                KeyFormat.Kind.STRING,
                s -> KeyFormat.Kind.valueOf(s.toUpperCase().replace('-', '_')),
                Set.of("string", "json", "connect-json", "confluent-avro", "protobuf", "json-schema"));
        return kind.fromARegistry()
                ? new KeyFormat(kind, registryUrl(node))
                : kind == KeyFormat.Kind.STRING ? KeyFormat.STRING : new KeyFormat(kind, null);
    }

    /** One URL or several, comma-separated as in Confluent's schema.registry.url: each is tried in turn. */
    private static String registryUrl(ConfigNode node) {
        String urls = node.requiredString("schema_registry_url", "http://registry:8081");
        List<String> checked = new java.util.ArrayList<>();
        for (String url : urls.split(",")) {
            URI uri;
            try {
                uri = new URI(url.trim());
            } catch (URISyntaxException e) {
                uri = null;
            }
            if (uri == null
                    || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
                    || uri.getHost() == null) {
                throw new ConfigException(node.keyPath("schema_registry_url") + " '" + withoutCredentials(url.trim())
                        + "' must be an http:// or https:// URL, e.g. http://registry:8081 (several: comma-separated)");
            }
            if (uri.getRawUserInfo() != null) {
                // as for Elasticsearch's hosts: URLs are printed in logs and messages, secrets must not be
                throw new ConfigException(
                        node.keyPath("schema_registry_url") + " '" + withoutCredentials(url.trim())
                                + "' holds credentials: put them in schema_registry.basic_auth_user_info (e.g. "
                                + "\"${SR_USER_INFO}\") or schema_registry.username and password, and leave them out of the URL");
            }
            checked.add(url.trim());
        }
        return String.join(",", checked);
    }

    /** The URLs with any {@code user:password@} masked, for messages. */
    static String withoutCredentials(String urls) {
        return urls == null ? null : urls.replaceAll("://[^/@,]*@", "://****@");
    }

    static IdSpec idSpec(ConfigNode node) {
        if (!node.has("id")) {
            return new IdSpec(IdSpec.Kind.KAFKA, List.of());
        }
        ConfigNode id = node.section("id");
        if (id.keys().isEmpty()) {
            String raw = node.string("id", "").trim();
            List<String> known = List.of("kafka", "kafka-connect", "key", "none");
            if (!known.contains(raw)) {
                String hint = DidYouMean.closest(raw, known)
                        .map(k -> " Did you mean '" + k + "'?")
                        .orElse("");
                throw new ConfigException(
                        node.keyPath("id") + " must be one of kafka, kafka-connect, key, none, {field: path}, "
                                + "{hash: [paths]} or {key_field: name}, got '"
                                + raw + "'." + hint);
            }
            return new IdSpec(IdSpec.Kind.valueOf(raw.toUpperCase().replace('-', '_')), List.of());
        }
        id.allowOnly(Set.of("field", "hash", "key_field"));
        if (!id.has("field") && !id.has("hash") && !id.has("key_field")) {
            throw ConfigException.alreadyReported(); // only unknown keys, each reported by allowOnly
        }
        if (id.keys().size() > 1) {
            throw new ConfigException(node.keyPath("id") + " takes one of field, hash or key_field, got " + id.keys());
        }
        if (id.has("key_field")) {
            return new IdSpec(IdSpec.Kind.KEY_FIELD, List.of(id.requiredString("key_field", "id")));
        }
        if (id.has("field")) {
            return new IdSpec(IdSpec.Kind.FIELD, List.of(id.requiredString("field", "order.id")));
        }
        List<String> fields = id.strings("hash");
        if (fields.isEmpty()) {
            throw new ConfigException(id.keyPath("hash") + " needs the fields to hash, e.g. hash: [user_id, order_id]");
        }
        return new IdSpec(IdSpec.Kind.HASH, List.copyOf(fields));
    }

    static String pipeline(ConfigNode node) {
        String pipeline = node.string("pipeline", null);
        if (pipeline != null && (pipeline.isBlank() || pipeline.startsWith("_"))) {
            throw new ConfigException(
                    node.keyPath("pipeline") + " '" + pipeline + "' is not a pipeline id: give the id of an "
                            + "ingest pipeline (PUT _ingest/pipeline/<id>); leave pipeline out to use the index's default_pipeline");
        }
        return pipeline;
    }
}
