package io.kes.jobs.decode.avro;

import io.kes.jobs.config.RegistrySettings;
import io.kes.jobs.decode.DecodeException;
import io.kes.jobs.decode.registry.RegisteredSchemas;
import io.kes.jobs.decode.registry.RegistryClient;
import io.kes.jobs.decode.registry.WireFrame;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;

/**
 * {@code format: confluent-avro}: values in the Confluent wire format, magic byte 0, a 4-byte
 * big-endian schema id, then Avro binary written with that schema, which comes from the schema
 * registry ({@code GET {url}/schemas/ids/{id}}) and is cached by id for the life of the task. A
 * record whose schema is named in a header instead, as Confluent's newer serializers write it
 * ({@code __value_schema_id}: a GUID, {@link WireFrame}), is bare Avro binary, its schema fetched by
 * GUID. Named types the schema takes from other subjects ({@code references}) are parsed first
 * ({@link RegisteredSchemas}).
 *
 * <p>Whose fault a failure is decides where it goes:
 * <ul>
 *   <li>Problems of the record itself are {@link DecodeException}s, so the record goes to the
 *       dead-letter topic (or stops the job naming it): no magic byte ({@code not_confluent_wire_format}),
 *       an id the registry does not know, HTTP 404 ({@code unknown_schema_id}), a schema that is not
 *       Avro or not a record ({@code unsupported_schema}), bytes that do not match the schema
 *       ({@code avro_mismatch}).</li>
 *   <li>A registry that cannot be reached (connection refused, timeouts, HTTP 5xx), after
 *       {@value RegisteredSchemas#ATTEMPTS} attempts with growing pauses, or that answers other than 200 or 404
 *       (e.g. 401: the URL or credentials are wrong), throws an {@link IllegalStateException}: that is
 *       not the record's fault, and dead-lettering would throw away every record of the outage. The
 *       job fails and Flink restarts it from the last checkpoint, retrying under its restart strategy;
 *       no record is lost or dead-lettered for it.</li>
 * </ul>
 */
public final class ConfluentAvroDecoder implements ValueDecoder {

    private final RegisteredSchemas schemas;
    private final Map<String, AvroToJson> converters = new HashMap<>();
    private final boolean keys;

    public ConfluentAvroDecoder(String registryUrl) {
        this(registryUrl, RegistrySettings.NONE);
    }

    /** @param registryUrls one URL or several, comma-separated */
    public ConfluentAvroDecoder(String registryUrls, RegistrySettings settings) {
        this(new RegisteredSchemas(registryUrls, settings), false);
    }

    /** A decoder of record keys: any schema (a string, a long, a record), and "key" in its messages. */
    public static ConfluentAvroDecoder forKeys(String registryUrls, RegistrySettings settings) {
        return new ConfluentAvroDecoder(new RegisteredSchemas(registryUrls, settings), true);
    }

    ConfluentAvroDecoder(String registryUrl, int attempts, Duration firstBackoff) {
        this(
                new RegisteredSchemas(new RegistryClient(registryUrl, RegistrySettings.NONE, attempts, firstBackoff)),
                false);
    }

    private ConfluentAvroDecoder(RegisteredSchemas schemas, boolean keys) {
        this.schemas = schemas;
        this.keys = keys;
    }

    @Override
    public byte[] toJson(byte[] value) throws DecodeException {
        return toJson(value, null);
    }

    @Override
    public byte[] toJson(byte[] value, byte[] schemaIdHeader) throws DecodeException {
        WireFrame frame = WireFrame.read(value, schemaIdHeader, false, keys ? "key" : "value", "Avro binary");
        AvroToJson converter = converters.get(frame.path());
        if (converter == null) {
            Schema schema = fetch(frame);
            converter = keys ? AvroToJson.forKeys(schema) : new AvroToJson(schema);
            converters.put(frame.path(), converter);
        }
        return converter.toJson(value, frame.offset(), value.length - frame.offset(), " (" + frame.shown() + ")");
    }

    private Schema fetch(WireFrame frame) throws DecodeException {
        RegisteredSchemas.Schema registered = schemas.get(frame);
        if (!"AVRO".equals(registered.type())) {
            throw new DecodeException(
                    "unsupported_schema",
                    frame.shown() + " is a " + registered.type() + " schema; format: confluent-avro reads Avro only");
        }
        try {
            Schema.Parser parser = new Schema.Parser();
            for (String referenced : RegisteredSchemas.orderedTexts(registered)) {
                parser.parse(referenced); // its named types become known to the parser
            }
            Schema schema = parser.parse(registered.text());
            if (!keys) {
                new AvroToJson(schema); // checks it is a record
            }
            return schema;
        } catch (AvroRuntimeException | IllegalArgumentException e) {
            throw new DecodeException(
                    "unsupported_schema",
                    frame.shown() + " from " + schemas.shown() + " cannot be used: " + e.getMessage());
        }
    }
}
