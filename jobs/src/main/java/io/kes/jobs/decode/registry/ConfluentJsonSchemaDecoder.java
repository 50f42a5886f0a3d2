package io.kes.jobs.decode.registry;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.jobs.config.RegistrySettings;
import io.kes.jobs.decode.DecodeException;
import io.kes.jobs.decode.avro.ValueDecoder;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * {@code format: json-schema} (and {@code key_format: json-schema}): JSON in Confluent's wire
 * format, as its {@code KafkaJsonSchemaSerializer} writes it ({@link WireFrame}: magic byte 0 and a
 * 4-byte schema id, or the schema in a header; then the JSON text, UTF-8).
 *
 * <p>The payload is the document as it is. The schema is fetched once per id to check that the id
 * is known and is a JSON Schema ({@code schemaType: JSON}), so that a topic of another format is
 * refused instead of misread; the payload is <em>not</em> validated against it: Confluent's
 * serializer validates what it writes when its producer asks it to, and a value the registry's
 * schema would refuse is still a JSON document Elasticsearch can index (its mapping decides).
 * Values must be JSON objects (documents); keys may be any JSON value.
 */
public final class ConfluentJsonSchemaDecoder implements ValueDecoder {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String FORMAT = "JSON text";

    private final RegisteredSchemas schemas;
    private final boolean keys;
    private final Set<String> checked = new HashSet<>();

    public ConfluentJsonSchemaDecoder(RegisteredSchemas schemas, boolean keys) {
        this.schemas = schemas;
        this.keys = keys;
    }

    public static ConfluentJsonSchemaDecoder of(String registryUrls, RegistrySettings settings, boolean keys) {
        return new ConfluentJsonSchemaDecoder(new RegisteredSchemas(registryUrls, settings), keys);
    }

    @Override
    public byte[] toJson(byte[] value) throws DecodeException {
        return toJson(value, null);
    }

    @Override
    public byte[] toJson(byte[] value, byte[] schemaIdHeader) throws DecodeException {
        String what = keys ? "key" : "value";
        WireFrame frame = WireFrame.read(value, schemaIdHeader, false, what, FORMAT);
        if (!checked.contains(frame.path())) {
            RegisteredSchemas.Schema schema = schemas.get(frame);
            if (!"JSON".equals(schema.type())) {
                throw new DecodeException(
                        "unsupported_schema",
                        frame.shown() + " is a " + schema.type()
                                + " schema; format: json-schema reads JSON Schema only");
            }
            checked.add(frame.path());
        }
        int length = value.length - frame.offset();
        try (JsonParser parser = JSON.createParser(value, frame.offset(), length)) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                throw new DecodeException(
                        "malformed_json", what + " of " + frame.shown() + " has no JSON after its schema id");
            }
            if (!keys && first != JsonToken.START_OBJECT) {
                throw new DecodeException(
                        "malformed_json",
                        what + " of " + frame.shown() + " is not a JSON object (it starts with " + first
                                + "): a document is a JSON object");
            }
            JsonNode node = parser.readValueAsTree();
            if (parser.nextToken() != null) {
                throw new DecodeException(
                        "malformed_json", what + " of " + frame.shown() + " has more after its JSON value");
            }
            if (!keys) {
                // the bytes are the document: no copy through the tree
                return frame.offset() == 0 ? value : Arrays.copyOfRange(value, frame.offset(), value.length);
            }
            return JSON.writeValueAsBytes(node);
        } catch (IOException e) {
            throw new DecodeException(
                    "malformed_json",
                    what + " of " + frame.shown() + " is not valid JSON: "
                            + e.getMessage().split("\n")[0]);
        }
    }
}
