package io.kes.jobs.decode;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import io.kes.jobs.config.RegistrySettings;
import io.kes.jobs.config.Route;
import io.kes.jobs.decode.avro.ConfluentAvroDecoder;
import io.kes.jobs.decode.avro.ValueDecoder;
import io.kes.jobs.decode.connect.ConnectEnvelope;
import io.kes.jobs.decode.registry.ConfluentJsonSchemaDecoder;
import io.kes.jobs.decode.registry.ConfluentProtobufDecoder;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;

/**
 * The document id of a record key ({@code id: key} or {@code {key_field: ...}}), by the route's
 * {@code key_format}.
 *
 * <p>{@code string} (the default) takes the key's bytes as text ({@link #text}). The other formats
 * decode the key to a JSON value first (json as it is, connect-json the envelope's payload,
 * confluent-avro, protobuf and json-schema through the registry, Avro rendered as kes renders Avro
 * values, Protobuf as {@link ConfluentProtobufDecoder} does) and the id is its
 * <em>canonical text</em>:
 * <ul>
 *   <li>a string: the string itself ({@code "order-17"} gives {@code order-17}, Connect's id), unless
 *       it would itself read as JSON ({@code "42"}, {@code "true"}, {@code "{...}"}, {@code " 7"}):
 *       then its JSON form with the quotes ({@code "42"});</li>
 *   <li>anything else: its JSON text, compact, object fields sorted by name, integers as integers,
 *       other numbers as the shortest exact decimal with at least one fractional digit
 *       ({@code 1.50} gives {@code 1.5}, {@code 1.0} stays {@code 1.0}: not the integer 1).</li>
 * </ul>
 * So two different keys never share an id: a raw string id never reads as JSON, every other id
 * does, a quoted one as a string and the rest as what they are; and keys equal as JSON values
 * (fields in another order, other spacing) share theirs. {@code key_field} takes one field of a key
 * that is an object (a Connect struct, an Avro record: Connect's {@code ExtractField$Key}) and
 * renders it the same way.
 */
final class KeyIds {

    private static final Base64.Encoder BASE64 = Base64.getUrlEncoder().withoutPadding();
    private static final ObjectWriter STRINGS = new ObjectMapper().writer();

    /** Marks an id made from a key that is not UTF-8 text; a text key that starts so is written the same way. */
    static final String BINARY_KEY_PREFIX = "\uFFFDb64:";

    private final Route.KeyFormat.Kind format;
    private final String field;
    private final ValueDecoder registryKeys;

    KeyIds(Route route, RegistrySettings registry) {
        this.format = route.keyFormat().kind();
        this.field = route.id().kind() == Route.IdSpec.Kind.KEY_FIELD
                ? route.id().fields().get(0)
                : null;
        String urls = route.keyFormat().registryUrl();
        this.registryKeys = switch (format) {
            case CONFLUENT_AVRO -> ConfluentAvroDecoder.forKeys(urls, registry);
            case PROTOBUF -> ConfluentProtobufDecoder.of(urls, registry, true);
            case JSON_SCHEMA -> ConfluentJsonSchemaDecoder.of(urls, registry, true);
            default -> null;
        };
    }

    /** @param schemaIdHeader the record's last {@code __key_schema_id} header, or null */
    String id(byte[] key, byte[] schemaIdHeader) throws DecodeException {
        if (key == null || key.length == 0) {
            throw new DecodeException("missing_id", "the route takes ids from record keys, and this record has none");
        }
        if (format == Route.KeyFormat.Kind.STRING) {
            return text(key);
        }
        JsonNode value = switch (format) {
            case JSON -> ConnectEnvelope.parse(key, "key");
            case CONNECT_JSON -> ConnectEnvelope.payload(key, "key");
            default -> ConnectEnvelope.parse(registryKeys.toJson(key, schemaIdHeader), "key");
        };
        if (field != null) {
            if (!value.isObject()) {
                throw new DecodeException(
                        "missing_id",
                        "the id is key field " + field + ", and this key is a JSON "
                                + value.getNodeType().name().toLowerCase() + ", not an object");
            }
            value = JsonPaths.get(value, field);
            if (value == null || value.isNull()) {
                throw new DecodeException(
                        "missing_id", "the id is key field " + field + ", which this key lacks or has null");
            }
        }
        if (value.isNull() || (value.isTextual() && value.textValue().isEmpty())) {
            throw new DecodeException(
                    "missing_id",
                    "the record key is " + (value.isNull() ? "null" : "empty") + ", which names no document");
        }
        return canonical(value);
    }

    static String canonical(JsonNode value) {
        if (value.isTextual()) {
            String text = value.textValue();
            return readsAsJson(text) ? quoted(text) : text;
        }
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    private static void write(JsonNode value, StringBuilder out) {
        if (value.isObject()) {
            List<String> names = new ArrayList<>();
            value.fieldNames().forEachRemaining(names::add);
            names.sort(null);
            out.append('{');
            for (int i = 0; i < names.size(); i++) {
                out.append(i == 0 ? "" : ",").append(quoted(names.get(i))).append(':');
                write(value.get(names.get(i)), out);
            }
            out.append('}');
        } else if (value.isArray()) {
            out.append('[');
            for (Iterator<JsonNode> it = value.elements(); it.hasNext(); ) {
                write(it.next(), out);
                out.append(it.hasNext() ? "," : "");
            }
            out.append(']');
        } else if (value.isIntegralNumber()) {
            out.append(value.bigIntegerValue());
        } else if (value.isNumber()) {
            BigDecimal d = value.decimalValue().stripTrailingZeros();
            out.append(d.scale() <= 0 ? d.setScale(1).toPlainString() : d.toPlainString());
        } else if (value.isTextual()) {
            out.append(quoted(value.textValue()));
        } else {
            out.append(value); // true, false, null
        }
    }

    /** Whether the text, taken as JSON, is a JSON value (then a raw string id could be another key's id). */
    private static boolean readsAsJson(String text) {
        char first = text.charAt(0);
        if (!(Character.isWhitespace(first)
                || first == '-'
                || (first >= '0' && first <= '9')
                || "\"{[tfn".indexOf(first) >= 0)) {
            return false; // the common case, decided without parsing: no JSON value starts so
        }
        try {
            JsonNode node = ConnectEnvelope.parse(text.getBytes(StandardCharsets.UTF_8), "key");
            return node != null;
        } catch (DecodeException notJson) {
            return false;
        }
    }

    private static String quoted(String text) {
        try {
            return STRINGS.writeValueAsString(text);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a string could not be written as JSON", e);
        }
    }

    /**
     * The id of a key taken as text ({@code key_format: string}): the key as text when it is valid
     * UTF-8 (a string key, as most producers write them); otherwise (a binary key) the marker and the
     * key in URL-safe base64, so distinct binary keys stay distinct ids (decoding them as text would
     * turn every invalid byte into U+FFFD and let keys collapse into one id). A text key that itself
     * starts with the marker is encoded the same way, so no two keys share an id.
     */
    static String text(byte[] key) {
        String lenient = new String(key, StandardCharsets.UTF_8);
        if (lenient.indexOf('\uFFFD') < 0) {
            return lenient; // the common case, one pass: valid UTF-8 (no replacement) that cannot start with the marker
        }
        try {
            String text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(key))
                    .toString();
            if (!text.startsWith(BINARY_KEY_PREFIX)) {
                return text;
            }
        } catch (CharacterCodingException binary) {
            // fall through: not text
        }
        return BINARY_KEY_PREFIX + BASE64.encodeToString(key);
    }
}
