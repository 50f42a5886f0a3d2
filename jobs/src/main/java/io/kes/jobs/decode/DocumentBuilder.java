package io.kes.jobs.decode;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kes.connector.DocumentOperation;
import io.kes.connector.IndexNameTemplate;
import io.kes.connector.KafkaCoordinateId;
import io.kes.connector.OpType;
import io.kes.connector.RecordOrigin;
import io.kes.jobs.config.RegistrySettings;
import io.kes.jobs.config.Route;
import io.kes.jobs.decode.avro.ValueDecoder;
import io.kes.jobs.decode.registry.WireFrame;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.Iterator;
import java.util.Map;

/**
 * Turns one Kafka record into the document operation its route asks for. When the route needs
 * nothing from inside the JSON (literal index, Kafka-coordinate or key ids, no field changes), the
 * value's bytes pass through untouched and are never parsed; otherwise the JSON is parsed once,
 * and serialized again only when fields were changed. Values of other formats (Avro) are converted
 * to JSON first by the route's {@link ValueDecoder} and then treated exactly like JSON values.
 * With {@code cdc: debezium} the value is a change event ({@link DebeziumEvent}): its after image
 * is the document, or the key's document is deleted. Ids from keys are {@link KeyIds}'.
 *
 * <p>Every document's origin carries what the dead-letter topic needs to replay its record as it
 * was: the key and headers always, the value only when the document's source is not the value
 * itself (fields changed, Avro), so an unchanged value crosses the network once.
 */
public final class DocumentBuilder {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Base64.Encoder BASE64 = Base64.getUrlEncoder().withoutPadding();

    private final Route route;
    private final IndexNameTemplate index;
    private final boolean parse;
    private final boolean transforms;
    private final ValueDecoder decoder;
    private final KeyIds keyIds;

    public DocumentBuilder(Route route) {
        this(route, RegistrySettings.NONE);
    }

    /** @param registry how the route's schema registry is reached, for values or keys of a registry format */
    public DocumentBuilder(Route route, RegistrySettings registry) {
        this.route = route;
        this.index = IndexNameTemplate.parse(route.target());
        this.parse = route.needsFields();
        this.transforms = !route.include().isEmpty()
                || !route.exclude().isEmpty()
                || !route.rename().isEmpty()
                || route.dataStream() != null;
        this.decoder = ValueDecoders.of(route, registry);
        this.keyIds = route.idsFromKeys() ? new KeyIds(route, registry) : null;
    }

    public DocumentOperation build(KafkaRecord record) throws DecodeException {
        byte[] json = record.value() == null
                ? null
                : decoder == null
                        ? record.value()
                        : decoder.toJson(record.value(), record.lastHeader(WireFrame.VALUE_HEADER));
        if (json == null) {
            return tombstone(record);
        }
        ObjectNode doc = null;
        if (route.cdc() == Route.Cdc.DEBEZIUM) {
            DebeziumEvent event = DebeziumEvent.read(json);
            if (event.deletes()) {
                return delete(record);
            }
            doc = event.after();
        }
        if (!parse) {
            return DocumentOperation.write(opType(), indexName(null, record, null))
                    .id(id(null, record))
                    .idUnique(idsUnique())
                    .source(json)
                    .origin(origin(record, decoder != null))
                    .pipeline(route.pipeline())
                    .version(version(record))
                    .build();
        }
        if (doc == null) {
            doc = parseObject(json);
        }
        Instant eventTime = eventTime(doc, record);
        String id = id(doc, record);
        String routing = route.routing() == null ? null : requiredText(doc, route.routing(), "routing");
        String target = indexName(doc, record, eventTime);
        byte[] source = json;
        boolean changed = transforms || route.cdc() != Route.Cdc.NONE; // a change event's document is its after image
        if (changed) {
            transform(doc, eventTime);
            source = serialize(doc);
        }
        // An Avro value's document is its JSON rendering, so its source is never the value.
        return DocumentOperation.write(opType(), target)
                .id(id)
                .idUnique(idsUnique())
                .routing(routing)
                .source(source)
                .origin(origin(record, changed || decoder != null))
                .pipeline(route.pipeline())
                .version(version(record))
                .build();
    }

    /** {@code id: kafka} or {@code kafka-connect}: a record's coordinates are its alone, so no other write of its id follows in a run. */
    private boolean idsUnique() {
        return route.id().kind() == Route.IdSpec.Kind.KAFKA || route.id().kind() == Route.IdSpec.Kind.KAFKA_CONNECT;
    }

    /** With {@code version: kafka-offset}, the record's offset: a later record of a partition always has a higher one. */
    private long version(KafkaRecord record) {
        return route.versionByOffset() ? record.offset() : DocumentOperation.NO_VERSION;
    }

    /**
     * The record as the dead-letter topic needs it: coordinates, key and headers, and the value when
     * the document's source differs from it ({@code sourceIsNotTheValue}); otherwise the source
     * stands in for the value.
     */
    public static RecordOrigin origin(KafkaRecord record, boolean sourceIsNotTheValue) {
        return new RecordOrigin(
                record.topic(),
                record.partition(),
                record.offset(),
                record.key(),
                sourceIsNotTheValue ? record.value() : null,
                record.headers());
    }

    private OpType opType() {
        return switch (route.op()) {
            case INDEX, DELETE_ON_TOMBSTONE -> OpType.INDEX;
            case CREATE -> OpType.CREATE;
            case UPSERT, UPSERT_DELETE_ON_TOMBSTONE -> OpType.UPSERT;
        };
    }

    private DocumentOperation tombstone(KafkaRecord record) throws DecodeException {
        // With cdc, the tombstone Debezium writes after a delete event deletes again: a no-op (404) when the
        // delete event came first, and the only delete left when compaction has removed that event.
        if (!route.op().deletesOnTombstone() && route.cdc() == Route.Cdc.NONE) {
            throw new DecodeException(
                    "tombstone",
                    "record has no value (a tombstone) and the route's op is "
                            + route.op().yaml()
                            + "; use op: delete-on-tombstone (or upsert-delete-on-tombstone) to delete documents "
                            + "on tombstones");
        }
        return delete(record);
    }

    /** The delete of the record key's document: a tombstone's, or a change event's. */
    private DocumentOperation delete(KafkaRecord record) throws DecodeException {
        if (index.placeholders().stream().anyMatch(p -> !isRecordPlaceholder(p.name()))) {
            throw new DecodeException(
                    "tombstone", "a delete cannot name an index built from document fields (" + route.target() + ")");
        }
        String target = indexName(null, record, Instant.ofEpochMilli(record.timestamp()));
        return DocumentOperation.write(OpType.DELETE, target)
                .id(id(null, record))
                .origin(origin(record, record.value() != null))
                .version(version(record))
                .build();
    }

    /**
     * The record's index: a placeholder is a field path of the document ({@code {http.status}}),
     * {@code {_topic}}, {@code {_key}} or {@code {_header.<name>}}; with {@code |pattern} it
     * formats the record's event time instead.
     */
    private String indexName(JsonNode doc, KafkaRecord record, Instant eventTime) throws DecodeException {
        if (index.isLiteral()) {
            return index.template(); // without the lambda below, which C1 (bin/kes run's JIT) allocates per record
        }
        return index.render(p -> p.isDate() ? p.format(eventTime) : placeholderValue(p.name(), doc, record));
    }

    private static boolean isRecordPlaceholder(String name) {
        return name.equals("_topic") || name.equals("_key") || name.startsWith("_header.");
    }

    private String placeholderValue(String field, JsonNode doc, KafkaRecord record) throws DecodeException {
        if ("_topic".equals(field)) {
            return record.topic();
        }
        if ("_key".equals(field)) {
            if (record.key() == null) {
                throw new DecodeException(
                        "missing_field", "index name " + index + " needs the record key, and the record has none");
            }
            return new String(record.key(), StandardCharsets.UTF_8);
        }
        if (field.startsWith("_header.")) {
            byte[] header = record.lastHeader(field.substring("_header.".length()));
            if (header == null) {
                throw new DecodeException(
                        "missing_field",
                        "index name " + index + " needs header " + field.substring(8) + ", which the record lacks");
            }
            return new String(header, StandardCharsets.UTF_8);
        }
        JsonNode value = JsonPaths.get(doc, field);
        if (value == null
                || !value.isValueNode()
                || value.isNull()
                || value.asText().isEmpty()) {
            throw new DecodeException(
                    "missing_field",
                    "index name " + index + " needs field " + field
                            + ", which the record lacks or is not a plain value");
        }
        return value.asText();
    }

    private static ObjectNode parseObject(byte[] value) throws DecodeException {
        JsonNode node;
        try {
            node = JSON.readTree(value);
        } catch (IOException e) {
            throw new DecodeException("malformed_json", "value is not valid JSON: " + firstLine(e.getMessage()));
        }
        if (!(node instanceof ObjectNode object)) {
            throw new DecodeException(
                    "malformed_json",
                    "value must be a JSON object, got " + (node == null ? "nothing" : node.getNodeType()));
        }
        return object;
    }

    private Instant eventTime(ObjectNode doc, KafkaRecord record) throws DecodeException {
        JsonNode value = JsonPaths.get(doc, route.timestampField());
        if (value == null || value.isNull()) {
            return Instant.ofEpochMilli(record.timestamp());
        }
        if (value.isNumber()) {
            return Instant.ofEpochMilli(value.asLong());
        }
        String text = value.asText();
        try {
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException notOffset) {
            try {
                return LocalDateTime.parse(text).toInstant(ZoneOffset.UTC);
            } catch (DateTimeParseException e) {
                throw new DecodeException(
                        "unparsable_timestamp",
                        "field " + route.timestampField() + " '" + text
                                + "' is neither an ISO-8601 date-time nor epoch milliseconds");
            }
        }
    }

    private String id(ObjectNode doc, KafkaRecord record) throws DecodeException {
        Route.IdSpec spec = route.id();
        switch (spec.kind()) {
            case KAFKA:
                return KafkaCoordinateId.of(record.topic(), record.partition(), record.offset());
            case KAFKA_CONNECT:
                // Kafka Connect's format, kept so that a job taking over from its Elasticsearch sink overwrites
                // the documents the connector wrote instead of duplicating them. Topic names cannot hold '+'.
                return record.topic() + "+" + record.partition() + "+" + record.offset();
            case KEY, KEY_FIELD:
                return keyIds.id(record.key(), record.lastHeader(WireFrame.KEY_HEADER));
            case FIELD:
                return requiredText(doc, spec.fields().get(0), "id");
            case HASH:
                StringBuilder joined = new StringBuilder();
                for (String field : spec.fields()) {
                    joined.append(requiredText(doc, field, "id hash")).append('\u0000');
                }
                return BASE64.encodeToString(
                        Murmur3Hash128.hash(joined.toString().getBytes(StandardCharsets.UTF_8)));
            default:
                return null;
        }
    }

    private static String requiredText(ObjectNode doc, String path, String what) throws DecodeException {
        JsonNode value = JsonPaths.get(doc, path);
        if (value == null
                || value.isNull()
                || !value.isValueNode()
                || value.asText().isEmpty()) {
            throw new DecodeException(
                    "missing_" + what.split(" ")[0],
                    "field " + path + " (the " + what + ") is "
                            + (value == null || value.isNull()
                                    ? "missing"
                                    : value.isValueNode() ? "empty" : "not a plain value"));
        }
        return value.asText();
    }

    private void transform(ObjectNode doc, Instant eventTime) {
        for (Map.Entry<String, String> rename : route.rename().entrySet()) {
            JsonNode value = JsonPaths.remove(doc, rename.getKey());
            if (value != null) {
                doc.set(rename.getValue(), value);
            }
        }
        for (String path : route.exclude()) {
            JsonPaths.remove(doc, path);
        }
        if (!route.include().isEmpty()) {
            for (Iterator<String> it = doc.fieldNames(); it.hasNext(); ) {
                if (!route.include().contains(it.next())) {
                    it.remove();
                }
            }
        }
        if (route.dataStream() != null && !doc.has("@timestamp")) {
            doc.put("@timestamp", eventTime.toString()); // data streams refuse documents without it
        }
    }

    private static byte[] serialize(ObjectNode doc) {
        try {
            return JSON.writeValueAsBytes(doc);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a parsed JSON tree could not be written back", e);
        }
    }

    private static String firstLine(String message) {
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }
}
