package io.kes.jobs.decode.connect;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kes.jobs.decode.DecodeException;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.Base64;
import java.util.Iterator;
import java.util.Map;

/**
 * Kafka Connect's JSON envelope, what {@code JsonConverter} writes with {@code schemas.enable=true}:
 * {@code {"schema": ..., "payload": ...}}, exactly these two fields, as the converter itself
 * requires. The payload is the record; the schema is used only to render Connect's logical types
 * as kes renders Avro's: {@code Decimal} (base64 of the unscaled bytes, or a number with
 * {@code decimal.format=NUMERIC}) a JSON number up to 15 digits of precision and a string beyond
 * (or without a declared precision), so Elasticsearch never rounds it; {@code Timestamp} an
 * ISO-8601 instant, {@code Date} yyyy-MM-dd, {@code Time} HH:mm:ss.SSS. Other types pass as the
 * converter wrote them (bytes stay base64). Debezium's own semantic types ({@code io.debezium.time.*})
 * keep their numbers, as Connect's Elasticsearch sink keeps them.
 */
public final class ConnectEnvelope {

    static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final int MAX_EXACT_DECIMAL_PRECISION = 15;
    private static final String LOGICAL = "org.apache.kafka.connect.data.";

    private ConnectEnvelope() {}

    /**
     * The payload of an envelope, its logical types rendered; a JSON null when the payload is null
     * (Connect's null value).
     *
     * @param what "value" or "key", for messages
     */
    public static JsonNode payload(byte[] bytes, String what) throws DecodeException {
        JsonNode envelope = parse(bytes, what);
        if (!(envelope instanceof ObjectNode object)
                || !object.has("schema")
                || !object.has("payload")
                || object.size() != 2) {
            throw new DecodeException(
                    "not_connect_envelope",
                    what + " is not Kafka Connect's JSON envelope {\"schema\": ..., \"payload\": ...} (the route's "
                            + "format connect-json is JsonConverter with schemas.enable=true): it "
                            + describe(envelope) + ". For JSON without the envelope (schemas.enable=false) use "
                            + "format json");
        }
        JsonNode schema = object.get("schema");
        JsonNode payload = object.get("payload");
        return schema.isObject() ? render(payload, schema, "") : payload;
    }

    /** Parses JSON, numbers kept exact; a key that is not JSON is a {@code malformed_key}, a value {@code malformed_json}. */
    public static JsonNode parse(byte[] bytes, String what) throws DecodeException {
        String errorType = what.equals("key") ? "malformed_key" : "malformed_json";
        try {
            JsonNode node = JSON.readTree(bytes);
            if (node == null || node.isMissingNode()) {
                throw new DecodeException(errorType, what + " is not valid JSON: it is empty");
            }
            return node;
        } catch (IOException e) {
            throw new DecodeException(errorType, what + " is not valid JSON: " + firstLine(e.getMessage()));
        }
    }

    /** The payload's JSON, for a value: a JSON object, or null for a null payload. */
    static byte[] objectBytes(JsonNode payload, String what) throws DecodeException {
        if (payload.isNull()) {
            return null;
        }
        if (!payload.isObject()) {
            throw new DecodeException(
                    "malformed_json",
                    what + " must be a JSON object (a Connect struct or map), got " + payload.getNodeType());
        }
        try {
            return JSON.writeValueAsBytes(payload);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a parsed JSON tree could not be written back", e);
        }
    }

    private static String describe(JsonNode node) {
        if (!(node instanceof ObjectNode object)) {
            return "is a JSON " + node.getNodeType().name().toLowerCase();
        }
        if (!object.has("schema") || !object.has("payload")) {
            return "has no " + (object.has("schema") ? "payload" : "schema") + " field";
        }
        StringBuilder extra = new StringBuilder();
        for (Iterator<String> it = object.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!name.equals("schema") && !name.equals("payload")) {
                extra.append(extra.length() == 0 ? "" : ", ").append(name);
            }
        }
        return "has fields besides schema and payload (" + extra + ")";
    }

    private static JsonNode render(JsonNode value, JsonNode schema, String path) throws DecodeException {
        if (value == null || value.isNull() || !schema.isObject()) {
            return value;
        }
        String name = schema.path("name").asText("");
        if (name.startsWith(LOGICAL)) {
            return logical(value, schema, name.substring(LOGICAL.length()), path);
        }
        switch (schema.path("type").asText("")) {
            case "struct" -> {
                if (value instanceof ObjectNode object) {
                    for (JsonNode field : schema.path("fields")) {
                        String f = field.path("field").asText();
                        JsonNode v = object.get(f);
                        if (v != null) {
                            object.set(f, render(v, field, path + f + "."));
                        }
                    }
                }
            }
            case "array" -> {
                if (value instanceof ArrayNode array) {
                    for (int i = 0; i < array.size(); i++) {
                        array.set(i, render(array.get(i), schema.path("items"), path));
                    }
                }
            }
            case "map" -> {
                if (value instanceof ObjectNode object) {
                    for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
                        Map.Entry<String, JsonNode> e = it.next();
                        e.setValue(render(e.getValue(), schema.path("values"), path));
                    }
                }
            }
            default -> {
                // a primitive: as written
            }
        }
        return value;
    }

    private static JsonNode logical(JsonNode value, JsonNode schema, String logical, String path)
            throws DecodeException {
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        String field = path.isEmpty() ? "the payload" : "field " + path.substring(0, path.length() - 1);
        if (!logical.equals("Decimal") && !value.isIntegralNumber()) {
            throw new DecodeException(
                    "connect_schema_mismatch",
                    field + " does not match its Connect schema " + logical + ": " + value + " is not an integer");
        }
        try {
            switch (logical) {
                case "Decimal" -> {
                    JsonNode parameters = schema.path("parameters");
                    int scale = Integer.parseInt(parameters.path("scale").asText("0"));
                    BigDecimal decimal = value.isNumber()
                            ? value.decimalValue()
                            : new BigDecimal(new BigInteger(Base64.getDecoder().decode(value.asText())), scale);
                    String precision =
                            parameters.path("connect.decimal.precision").asText(null);
                    return precision != null && Integer.parseInt(precision) <= MAX_EXACT_DECIMAL_PRECISION
                            ? nodes.numberNode(decimal)
                            : nodes.textNode(decimal.toPlainString());
                }
                case "Timestamp" -> {
                    return nodes.textNode(
                            Instant.ofEpochMilli(value.longValue()).toString());
                }
                case "Date" -> {
                    return nodes.textNode(
                            LocalDate.ofEpochDay(value.longValue()).toString());
                }
                case "Time" -> {
                    return nodes.textNode(LocalTime.ofNanoOfDay(value.longValue() * 1_000_000L)
                            .toString());
                }
                default -> {
                    return value;
                }
            }
        } catch (IllegalArgumentException | java.time.DateTimeException | ArithmeticException e) {
            throw new DecodeException(
                    "connect_schema_mismatch",
                    field + " does not match its Connect schema " + logical + " (" + value + "): " + e.getMessage());
        }
    }

    static String firstLine(String message) {
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }
}
