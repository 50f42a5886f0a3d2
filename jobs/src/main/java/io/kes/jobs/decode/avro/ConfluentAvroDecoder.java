package io.kes.jobs.decode.avro;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.jobs.config.RegistrySettings;
import io.kes.jobs.decode.DecodeException;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;

/**
 * {@code format: confluent-avro}: values in the Confluent wire format, magic byte 0, a 4-byte
 * big-endian schema id, then Avro binary written with that schema, which comes from the schema
 * registry ({@code GET {url}/schemas/ids/{id}}) and is cached by id for the life of the task.
 *
 * <p>Whose fault a failure is decides where it goes:
 * <ul>
 *   <li>Problems of the record itself are {@link DecodeException}s, so the record goes to the
 *       dead-letter topic (or stops the job naming it): no magic byte ({@code not_confluent_wire_format}),
 *       an id the registry does not know, HTTP 404 ({@code unknown_schema_id}), a schema that is not
 *       Avro or not a record ({@code unsupported_schema}), bytes that do not match the schema
 *       ({@code avro_mismatch}).</li>
 *   <li>A registry that cannot be reached (connection refused, timeouts, HTTP 5xx), after
 *       {@value #ATTEMPTS} attempts with growing pauses, or that answers other than 200 or 404
 *       (e.g. 401: the URL or credentials are wrong), throws an {@link IllegalStateException}: that is
 *       not the record's fault, and dead-lettering would throw away every record of the outage. The
 *       job fails and Flink restarts it from the last checkpoint, retrying under its restart strategy;
 *       no record is lost or dead-lettered for it.</li>
 * </ul>
 */
public final class ConfluentAvroDecoder implements ValueDecoder {

    static final int ATTEMPTS = 4;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final RegistryClient registry;
    private final Map<Integer, AvroToJson> converters = new HashMap<>();
    private final boolean keys;

    public ConfluentAvroDecoder(String registryUrl) {
        this(registryUrl, RegistrySettings.NONE);
    }

    /** @param registryUrls one URL or several, comma-separated */
    public ConfluentAvroDecoder(String registryUrls, RegistrySettings settings) {
        this(new RegistryClient(registryUrls, settings, ATTEMPTS, Duration.ofMillis(500)), false);
    }

    /** A decoder of record keys: any schema (a string, a long, a record), and "key" in its messages. */
    public static ConfluentAvroDecoder forKeys(String registryUrls, RegistrySettings settings) {
        return new ConfluentAvroDecoder(
                new RegistryClient(registryUrls, settings, ATTEMPTS, Duration.ofMillis(500)), true);
    }

    ConfluentAvroDecoder(String registryUrl, int attempts, Duration firstBackoff) {
        this(new RegistryClient(registryUrl, RegistrySettings.NONE, attempts, firstBackoff), false);
    }

    private ConfluentAvroDecoder(RegistryClient registry, boolean keys) {
        this.registry = registry;
        this.keys = keys;
    }

    @Override
    public byte[] toJson(byte[] value) throws DecodeException {
        if (value.length < 5 || value[0] != 0) {
            throw new DecodeException(
                    "not_confluent_wire_format",
                    (keys ? "key" : "value") + " is not in the Confluent wire format (magic byte 0, "
                            + "a 4-byte schema id, Avro binary): "
                            + (value.length < 5
                                    ? "it has only " + value.length + " bytes"
                                    : "it starts with byte 0x" + String.format("%02x", value[0] & 0xff)
                                            + (value[0] == '{' ? " ('{', JSON?)" : "")));
        }
        int id = (value[1] & 0xff) << 24 | (value[2] & 0xff) << 16 | (value[3] & 0xff) << 8 | (value[4] & 0xff);
        AvroToJson converter = converters.get(id);
        if (converter == null) {
            Schema schema = fetch(id);
            converter = keys ? AvroToJson.forKeys(schema) : new AvroToJson(schema);
            converters.put(id, converter);
        }
        return converter.toJson(value, 5, value.length - 5, " (schema id " + id + ")");
    }

    private Schema fetch(int id) throws DecodeException {
        RegistryClient.Answer response = registry.get("/schemas/ids/" + Integer.toUnsignedString(id));
        String url = response.url();
        if (response.statusCode() == 404) {
            throw new DecodeException(
                    "unknown_schema_id",
                    "schema id " + Integer.toUnsignedString(id) + " is not in the schema registry " + registry.shown()
                            + " (" + abbreviate(response.body()) + ")");
        }
        if (response.statusCode() != 200) {
            throw new IllegalStateException("the schema registry answered GET " + url + " with HTTP "
                    + response.statusCode() + " (" + abbreviate(response.body()) + "); check schema_registry_url"
                    + (response.statusCode() == 401 || response.statusCode() == 403
                            ? " and the credentials of schema_registry (basic_auth_user_info, username/password or "
                                    + "bearer_token)"
                            : ""));
        }
        String schemaJson;
        try {
            JsonNode body = JSON.readTree(response.body());
            String type = body.path("schemaType").asText("AVRO");
            if (!"AVRO".equals(type)) {
                throw new DecodeException(
                        "unsupported_schema",
                        "schema id " + id + " is a " + type + " schema; format: confluent-avro reads Avro only");
            }
            if (!body.path("references").isEmpty()) {
                throw new DecodeException(
                        "unsupported_schema",
                        "schema id " + id + " uses schema references, which kes does not resolve yet");
            }
            schemaJson = body.path("schema").textValue();
        } catch (IOException e) {
            throw new IllegalStateException(
                    "the schema registry answered GET " + url + " with something that is not JSON: "
                            + abbreviate(response.body()),
                    e);
        }
        if (schemaJson == null) {
            throw new IllegalStateException(
                    "the schema registry answered GET " + url + " without a schema: " + abbreviate(response.body()));
        }
        try {
            Schema schema = AvroToJson.parse(schemaJson);
            if (!keys) {
                new AvroToJson(schema); // checks it is a record
            }
            return schema;
        } catch (AvroRuntimeException | IllegalArgumentException e) {
            throw new DecodeException(
                    "unsupported_schema",
                    "schema id " + id + " from " + registry.shown() + " cannot be used: " + e.getMessage());
        }
    }

    private static String abbreviate(String s) {
        if (s == null) {
            return "";
        }
        return s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }
}
