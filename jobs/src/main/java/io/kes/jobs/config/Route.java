package io.kes.jobs.config;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One entry of {@code routes:}: which topics go where, how a record becomes a document. Read by
 * {@link #from}: each key apart ({@link RouteKeys}), then the keys against each other
 * ({@link RouteConflicts}), so that each message can name the keys that conflict.
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
 * @param op             {@code op}: index (default), create, upsert, delete-on-tombstone, upsert-delete-on-tombstone
 * @param timestampField {@code timestamp_field}: the event time (default {@code @timestamp}; Kafka's record timestamp when absent)
 * @param include        {@code include}: keep only these top-level fields (empty: all)
 * @param exclude        {@code exclude}: drop these field paths
 * @param rename         {@code rename}: field path → new top-level name
 * @param template       {@code index_template}: settings of a composable index template kes puts at start, or null
 * @param format         {@code format} with {@code avro_schema_file}, {@code schema_registry_url} or
 *                       {@code string_field}: how values are encoded
 * @param keyFormat      {@code key_format}: how keys are encoded, when ids come from them
 * @param cdc            {@code cdc}: the change-event envelope values arrive in, which then decides each record's op
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
        boolean versionByOffset,
        KeyFormat keyFormat,
        Cdc cdc)
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
            "string_field",
            "key_format",
            "cdc",
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
        DELETE_ON_TOMBSTONE,
        /** Upserts records and deletes on tombstones: Connect's write.method=upsert with behavior.on.null.values=delete. */
        UPSERT_DELETE_ON_TOMBSTONE;

        /** Whether a tombstone deletes its key's document. */
        public boolean deletesOnTombstone() {
            return this == DELETE_ON_TOMBSTONE || this == UPSERT_DELETE_ON_TOMBSTONE;
        }

        /** Whether a record with a value updates its document ({@code doc_as_upsert}) rather than replacing it. */
        public boolean upserts() {
            return this == UPSERT || this == UPSERT_DELETE_ON_TOMBSTONE;
        }

        /** As written in the YAML. */
        public String yaml() {
            return name().toLowerCase().replace('_', '-');
        }
    }

    /** Change-event envelopes a route can read. */
    public enum Cdc {
        NONE,
        /**
         * Debezium's {@code {before, after, op, ...}}: {@code c}, {@code r}, {@code u} index the
         * {@code after} image, {@code d} and tombstones delete the key's document.
         */
        DEBEZIUM
    }

    /**
     * How record values are encoded.
     *
     * @param kind        {@code format}: json (default), connect-json, string, avro, confluent-avro, protobuf or json-schema
     * @param schemaJson  with avro: the writer schema, read from {@code avro_schema_file} when the config is loaded
     * @param registryUrl with confluent-avro, protobuf or json-schema: {@code schema_registry_url}, where schemas are fetched by id
     * @param stringField with string: the field of the document that holds the value's text ({@code string_field})
     */
    public record ValueFormat(Kind kind, String schemaJson, String registryUrl, String stringField)
            implements Serializable {
        public static final ValueFormat JSON = new ValueFormat(Kind.JSON, null, null);

        public ValueFormat(Kind kind, String schemaJson, String registryUrl) {
            this(kind, schemaJson, registryUrl, null);
        }

        /** Credentials in a registry URL stay out of logs and messages. */
        @Override
        public String toString() {
            return "ValueFormat[kind=" + kind + ", registryUrl=" + RouteKeys.withoutCredentials(registryUrl)
                    + ", stringField=" + stringField + "]";
        }

        /** The formats. */
        public enum Kind {
            JSON,
            /** Kafka Connect's JsonConverter with schemas.enable=true: {@code {"schema": ..., "payload": ...}}. */
            CONNECT_JSON,
            /** Kafka Connect's StringConverter: UTF-8 text, which becomes one field of the document. */
            STRING,
            AVRO,
            CONFLUENT_AVRO,
            /** Protobuf in Confluent's wire format, descriptors from the registry's .proto text. */
            PROTOBUF,
            /** JSON in Confluent's wire format (KafkaJsonSchemaSerializer): the payload is the document. */
            JSON_SCHEMA;

            /** Whether values of this format name their schema in the registry. */
            public boolean fromARegistry() {
                return this == CONFLUENT_AVRO || this == PROTOBUF || this == JSON_SCHEMA;
            }
        }
    }

    /**
     * How record keys are encoded, for ids made from them ({@code id: key} or {@code {key_field: ...}}).
     *
     * @param kind        {@code key_format}: string (default: the key's bytes as text), json, connect-json, confluent-avro,
     *                    protobuf or json-schema
     * @param registryUrl with a registry format: the route's {@code schema_registry_url}
     */
    public record KeyFormat(Kind kind, String registryUrl) implements Serializable {
        public static final KeyFormat STRING = new KeyFormat(Kind.STRING, null);

        /** Credentials in a registry URL stay out of logs and messages. */
        @Override
        public String toString() {
            return "KeyFormat[kind=" + kind + ", registryUrl=" + RouteKeys.withoutCredentials(registryUrl) + "]";
        }

        /** The formats. */
        public enum Kind {
            STRING,
            JSON,
            CONNECT_JSON,
            CONFLUENT_AVRO,
            PROTOBUF,
            JSON_SCHEMA;

            /** Whether keys of this format name their schema in the registry. */
            public boolean fromARegistry() {
                return this == CONFLUENT_AVRO || this == PROTOBUF || this == JSON_SCHEMA;
            }
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
            /** One field of a key that is a JSON object, a Connect struct or an Avro record: Connect's ExtractField$Key. */
            KEY_FIELD,
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
                || dataStream != null
                || cdc != Cdc.NONE;
    }

    /** Whether values or keys are read with schemas from a registry. */
    public boolean readsFromARegistry() {
        return format.kind().fromARegistry() || keyFormat.kind().fromARegistry();
    }

    /** Whether ids come from record keys. */
    public boolean idsFromKeys() {
        return id.kind() == IdSpec.Kind.KEY || id.kind() == IdSpec.Kind.KEY_FIELD;
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
        String pattern = node.attempt(() -> RouteKeys.topicPattern(node, topics), null);
        String dataStream = node.attempt(() -> node.string("data_stream", null), null);
        String index = node.attempt(() -> node.string("index", null), null);
        node.attempt(
                () -> {
                    RouteKeys.checkTarget(node, index, dataStream);
                    return null;
                },
                null);
        ValueFormat format = node.attempt(() -> RouteKeys.valueFormat(node), ValueFormat.JSON);
        Op op = node.attempt(
                () -> node.choice(
                        "op",
                        Op.INDEX,
                        s -> Op.valueOf(s.toUpperCase().replace('-', '_')),
                        Set.of("index", "create", "upsert", "delete-on-tombstone", "upsert-delete-on-tombstone")),
                null);
        IdSpec id = node.attempt(() -> RouteKeys.idSpec(node), null);
        KeyFormat keyFormat = node.attempt(() -> RouteKeys.keyFormat(node), KeyFormat.STRING);
        Cdc cdc = node.attempt(
                () -> node.choice("cdc", Cdc.NONE, s -> Cdc.valueOf(s.toUpperCase()), Set.of("none", "debezium")),
                Cdc.NONE);
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
        String pipeline = node.attempt(() -> RouteKeys.pipeline(node), null);
        boolean versionByOffset = node.attempt(
                        () -> node.choice("version", "none", s -> s, Set.of("none", "kafka-offset")), "none")
                .equals("kafka-offset");
        if (versionByOffset && op != null && id != null) {
            RouteConflicts.versionByOffset(node, op, id, dataStream);
        }
        if (versionByOffset) {
            RouteConflicts.versionOnOneTopic(node, topics, pattern);
        }
        if (op != null && id != null) {
            RouteConflicts.opAndId(node, op, id, routing, dataStream);
        }
        if (pipeline != null) {
            RouteConflicts.pipelineAndOp(node, pipeline, op, dataStream);
        }
        if (id != null) {
            RouteConflicts.keyFormatAndId(node, keyFormat, id);
        }
        if (cdc != Cdc.NONE && id != null) {
            RouteConflicts.cdc(node, id, routing, dataStream);
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
                versionByOffset,
                keyFormat,
                cdc);
    }
}
