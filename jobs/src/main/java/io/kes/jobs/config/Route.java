package io.kes.jobs.config;

import io.kes.connector.IndexNameTemplate;
import java.io.IOException;
import java.io.Serializable;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;

/**
 * One entry of {@code routes:}: which topics go where, how a record becomes a document. Over the
 * house's 350 lines on purpose: every key of a route, read and checked against the others in one
 * place, so that each message can name the keys that conflict.
 *
 * @param topics         {@code topics}: Kafka topics of this route (or use {@code topic_pattern})
 * @param topicPattern   {@code topic_pattern}: a Java regex over topic names, e.g. {@code logs-.*}
 * @param index          {@code index}: target index, alias or name template such as
 *                       {@code logs-{service}-{@timestamp|yyyy.MM.dd}} (fields of the record, dates of its event time)
 * @param dataStream     {@code data_stream}: write to this data stream instead (op create, {@code @timestamp} added when missing)
 * @param id             {@code id}: {@code kafka} (default: topic/partition/offset), {@code kafka-connect} (Kafka Connect's
 *                       {@code topic+partition+offset} text, to keep documents written by its Elasticsearch sink),
 *                       {@code key} (the record key, for compacted topics), {@code none}, {@code {field: path}} or
 *                       {@code {hash: [paths]}}
 * @param routing        {@code routing}: field path whose value is the custom routing, or null; never with
 *                       delete-on-tombstone (a tombstone has no value to read it from)
 * @param op             {@code op}: index (default), create, upsert, delete-on-tombstone
 * @param timestampField {@code timestamp_field}: the event time (default {@code @timestamp}; Kafka's record timestamp when absent)
 * @param include        {@code include}: keep only these top-level fields (empty: all)
 * @param exclude        {@code exclude}: drop these field paths
 * @param rename         {@code rename}: field path → new top-level name
 * @param template       {@code index_template}: settings of a composable index template kes puts at start, or null
 * @param format         {@code format} with {@code avro_schema_file} or {@code schema_registry_url}: how values are encoded
 * @param pipeline       {@code pipeline}: the ingest pipeline each document goes through (named in its bulk item), or null
 *                       (then the index's {@code index.default_pipeline}, if any, applies)
 * @param versionByOffset {@code version: kafka-offset}: each write carries its record's offset as an external
 *                       version ({@code external_gte}), so a replay never takes a document back to an older value
 */
public record Route(
        List<String> topics,
        String topicPattern,
        String index,
        String dataStream,
        IdSpec id,
        String routing,
        Op op,
        String timestampField,
        List<String> include,
        List<String> exclude,
        Map<String, String> rename,
        IndexTemplateSettings template,
        ValueFormat format,
        String pipeline,
        boolean versionByOffset)
        implements Serializable {

    static final Set<String> KEYS = Set.of(
            "topics",
            "topic_pattern",
            "index",
            "data_stream",
            "id",
            "routing",
            "op",
            "format",
            "avro_schema_file",
            "schema_registry_url",
            "timestamp_field",
            "include",
            "exclude",
            "rename",
            "index_template",
            "pipeline",
            "version");

    /** What a record does to its document. */
    public enum Op {
        INDEX,
        CREATE,
        UPSERT,
        DELETE_ON_TOMBSTONE
    }

    /**
     * How record values are encoded.
     *
     * @param kind        {@code format}: json (default), avro or confluent-avro
     * @param schemaJson  with avro: the writer schema, read from {@code avro_schema_file} when the config is loaded
     * @param registryUrl with confluent-avro: {@code schema_registry_url}, where schemas are fetched by id
     */
    public record ValueFormat(Kind kind, String schemaJson, String registryUrl) implements Serializable {
        public static final ValueFormat JSON = new ValueFormat(Kind.JSON, null, null);

        /** The formats. */
        public enum Kind {
            JSON,
            AVRO,
            CONFLUENT_AVRO
        }
    }

    /** How a document's {@code _id} is made. */
    public record IdSpec(Kind kind, List<String> fields) implements Serializable {
        /** The id strategies. */
        public enum Kind {
            KAFKA,
            /** {@code topic+partition+offset} as text: the ids Kafka Connect's Elasticsearch sink gives with key.ignore. */
            KAFKA_CONNECT,
            KEY,
            NONE,
            FIELD,
            HASH
        }
    }

    public boolean matches(String topic) {
        return topicPattern != null ? Pattern.matches(topicPattern, topic) : topics.contains(topic);
    }

    /** The name documents are written to: the data stream, or the index template. */
    public String target() {
        return dataStream != null ? dataStream : index;
    }

    /** Whether decoding has to look inside the JSON (else the bytes pass through untouched). */
    public boolean needsFields() {
        return id.kind() == IdSpec.Kind.FIELD
                || id.kind() == IdSpec.Kind.HASH
                || routing != null
                || target().contains("{")
                || !include.isEmpty()
                || !exclude.isEmpty()
                || !rename.isEmpty()
                || dataStream != null;
    }

    /**
     * Reads one route. Independent parts (topics, target, format, op, id, template) are read apart
     * and each problem kept, so that a route with several mistakes reports them all; checks that
     * combine parts run only when those parts were readable.
     */
    static Route from(ConfigNode node) {
        ConfigProblems problems = node.problems();
        int before = problems.count();
        node.allowOnly(KEYS);
        List<String> topics = node.attempt(() -> node.strings("topics"), List.of());
        String pattern = node.attempt(() -> topicPattern(node, topics), null);
        String dataStream = node.attempt(() -> node.string("data_stream", null), null);
        String index = node.attempt(() -> node.string("index", null), null);
        node.attempt(
                () -> {
                    checkTarget(node, index, dataStream);
                    return null;
                },
                null);
        ValueFormat format = node.attempt(() -> valueFormat(node), ValueFormat.JSON);
        Op op = node.attempt(
                () -> node.choice(
                        "op",
                        Op.INDEX,
                        s -> Op.valueOf(s.toUpperCase().replace('-', '_')),
                        Set.of("index", "create", "upsert", "delete-on-tombstone")),
                null);
        IdSpec id = node.attempt(() -> idSpec(node), null);
        String routing = node.attempt(() -> node.string("routing", null), null);
        Map<String, String> rename = node.attempt(
                () -> {
                    Map<String, String> r = new LinkedHashMap<>();
                    ConfigNode renames = node.section("rename");
                    for (String from : renames.keys()) {
                        r.put(from, renames.string(from, null));
                    }
                    return r;
                },
                Map.of());
        String timestampField = node.attempt(() -> node.string("timestamp_field", "@timestamp"), "@timestamp");
        List<String> include = node.attempt(() -> node.strings("include"), List.of());
        List<String> exclude = node.attempt(() -> node.strings("exclude"), List.of());
        IndexTemplateSettings template = node.attempt(
                () -> IndexTemplateSettings.from(node.section("index_template"), dataStream != null), null);
        String pipeline = node.attempt(() -> pipeline(node), null);
        boolean versionByOffset = node.attempt(
                        () -> node.choice("version", "none", s -> s, Set.of("none", "kafka-offset")), "none")
                .equals("kafka-offset");
        if (versionByOffset && op != null && id != null) {
            checkVersionByOffset(node, op, id, dataStream);
        }
        if (versionByOffset && (topics.size() > 1 || pattern != null)) {
            // offsets order the records of one partition only; Kafka orders nothing across topics
            problems.add(node.keyPath("version") + " kafka-offset needs a route of one topic: an id written from "
                    + (pattern != null ? "the topics topic_pattern '" + pattern + "' matches" : "topics " + topics)
                    + " carries offsets of unrelated partitions, so its newer value may carry a lower version, be"
                    + " refused with a 409 and be lost. Give each topic a route (one route per topic, topics: [name])"
                    + " and an index of its own, or leave version out");
        }
        if (op != null && id != null) {
            checkOpAndId(node, op, id, routing, dataStream);
        }
        if (pipeline != null && op == Op.UPSERT && dataStream == null) {
            problems.add(node.keyPath("pipeline") + " '" + pipeline + "' cannot be used with op upsert: a bulk "
                    + "update names no pipeline; use op: index, or set index.default_pipeline on the index instead");
        }
        if (problems.count() > before) {
            throw ConfigException.alreadyReported();
        }
        return new Route(
                List.copyOf(topics),
                pattern,
                index,
                dataStream,
                id,
                routing,
                dataStream != null ? Op.CREATE : op,
                timestampField,
                List.copyOf(include),
                List.copyOf(exclude),
                Map.copyOf(rename),
                template,
                format,
                pipeline,
                versionByOffset);
    }

    /**
     * {@code version: kafka-offset} needs writes Elasticsearch can version externally (index and
     * delete; not create, not a bulk update) of documents whose id repeats (else there is nothing
     * to go back in time).
     */
    private static void checkVersionByOffset(ConfigNode node, Op op, IdSpec id, String dataStream) {
        if (op == Op.CREATE || op == Op.UPSERT || dataStream != null) {
            node.problems()
                    .add(node.keyPath("version") + " kafka-offset needs op index or delete-on-tombstone: Elasticsearch "
                            + "versions no "
                            + (dataStream != null
                                    ? "data stream write (op create)"
                                    : "op " + op.name().toLowerCase())
                            + "; leave version out");
        } else if (id.kind() == IdSpec.Kind.KAFKA
                || id.kind() == IdSpec.Kind.KAFKA_CONNECT
                || id.kind() == IdSpec.Kind.NONE) {
            node.problems()
                    .add(node.keyPath("version")
                            + " kafka-offset needs ids that repeat (id: key, {field: ...} or {hash: "
                            + "[...]}): with id " + id.kind().name().toLowerCase()
                            + " every record is its own document, which no replay "
                            + "takes back in time; leave version out");
        }
    }

    private static String pipeline(ConfigNode node) {
        String pipeline = node.string("pipeline", null);
        if (pipeline != null && (pipeline.isBlank() || pipeline.startsWith("_"))) {
            throw new ConfigException(
                    node.keyPath("pipeline") + " '" + pipeline + "' is not a pipeline id: give the id of an "
                            + "ingest pipeline (PUT _ingest/pipeline/<id>); leave pipeline out to use the index's default_pipeline");
        }
        return pipeline;
    }

    private static String topicPattern(ConfigNode node, List<String> topics) {
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

    private static void checkTarget(ConfigNode node, String index, String dataStream) {
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

    private static void checkOpAndId(ConfigNode node, Op op, IdSpec id, String routing, String dataStream) {
        if (dataStream != null && op != Op.INDEX && op != Op.CREATE) {
            node.problems()
                    .add(node.keyPath("op") + " " + op.name().toLowerCase() + " is not possible on a data stream: "
                            + "data streams only take create (kes uses create for them)");
            return;
        }
        if (op == Op.DELETE_ON_TOMBSTONE && id.kind() != IdSpec.Kind.KEY) {
            node.problems()
                    .add(node.keyPath("id") + " must be key with op delete-on-tombstone: a tombstone has no value, "
                            + "so only its key can name the document to delete");
            return;
        }
        if (op == Op.DELETE_ON_TOMBSTONE && routing != null) {
            // A delete sent without the routing its document was indexed with goes to another shard: Elasticsearch
            // answers 404, which counts as done, and the document stays. Routing by the key instead would change
            // nothing: with id: key the default routing is the _id, which is the key.
            node.problems()
                    .add(node.keyPath("routing") + " cannot be used with op delete-on-tombstone: a tombstone "
                            + "has no value to read the routing field '" + routing
                            + "' from, so its delete would go to the wrong "
                            + "shard (Elasticsearch answers 404) and the document would stay; remove routing (with id: key, "
                            + "Elasticsearch already places each document by its key), or keep routing and use op: index or upsert "
                            + "without deletes");
            return;
        }
        if ((op == Op.UPSERT || op == Op.DELETE_ON_TOMBSTONE) && id.kind() == IdSpec.Kind.NONE) {
            node.problems()
                    .add(node.keyPath("id") + " none cannot " + (op == Op.UPSERT ? "upsert" : "delete")
                            + ": those need the document's id; use id: key, {field: ...} or {hash: [...]}");
        }
    }

    private static ValueFormat valueFormat(ConfigNode node) {
        ValueFormat.Kind kind = node.choice(
                "format",
                ValueFormat.Kind.JSON,
                s -> ValueFormat.Kind.valueOf(s.toUpperCase().replace('-', '_')),
                Set.of("json", "avro", "confluent-avro"));
        if (kind != ValueFormat.Kind.AVRO && node.has("avro_schema_file")) {
            throw new ConfigException(
                    node.keyPath("avro_schema_file") + " only applies to format: avro (this route's format is "
                            + kind.name().toLowerCase().replace('_', '-') + ")");
        }
        if (kind != ValueFormat.Kind.CONFLUENT_AVRO && node.has("schema_registry_url")) {
            throw new ConfigException(node.keyPath("schema_registry_url")
                    + " only applies to format: confluent-avro (this route's format is "
                    + kind.name().toLowerCase().replace('_', '-') + ")");
        }
        switch (kind) {
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
            case CONFLUENT_AVRO -> {
                String url = node.requiredString("schema_registry_url", "http://registry:8081");
                URI uri;
                try {
                    uri = new URI(url.trim());
                } catch (URISyntaxException e) {
                    uri = null;
                }
                if (uri == null
                        || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
                        || uri.getHost() == null) {
                    throw new ConfigException(node.keyPath("schema_registry_url") + " '" + url
                            + "' must be an http:// or https:// URL, e.g. http://registry:8081");
                }
                return new ValueFormat(kind, null, url.trim());
            }
            default -> {
                return ValueFormat.JSON;
            }
        }
    }

    private static IdSpec idSpec(ConfigNode node) {
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
                        node.keyPath("id") + " must be one of kafka, kafka-connect, key, none, {field: path} or "
                                + "{hash: [paths]}, got '"
                                + raw + "'." + hint);
            }
            return new IdSpec(IdSpec.Kind.valueOf(raw.toUpperCase().replace('-', '_')), List.of());
        }
        id.allowOnly(Set.of("field", "hash"));
        if (!id.has("field") && !id.has("hash")) {
            throw ConfigException.alreadyReported(); // only unknown keys, each reported by allowOnly
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
}
