package io.kes.jobs.decode.avro;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.jobs.decode.DecodeException;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
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

    private final String registryUrl;
    private final int attempts;
    private final Duration firstBackoff;
    private final Map<Integer, AvroToJson> converters = new HashMap<>();
    private final boolean keys;

    public ConfluentAvroDecoder(String registryUrl) {
        this(registryUrl, ATTEMPTS, Duration.ofMillis(500), false);
    }

    /** A decoder of record keys: any schema (a string, a long, a record), and "key" in its messages. */
    public static ConfluentAvroDecoder forKeys(String registryUrl) {
        return new ConfluentAvroDecoder(registryUrl, ATTEMPTS, Duration.ofMillis(500), true);
    }

    ConfluentAvroDecoder(String registryUrl, int attempts, Duration firstBackoff) {
        this(registryUrl, attempts, firstBackoff, false);
    }

    private ConfluentAvroDecoder(String registryUrl, int attempts, Duration firstBackoff, boolean keys) {
        this.registryUrl = registryUrl.endsWith("/") ? registryUrl.substring(0, registryUrl.length() - 1) : registryUrl;
        this.attempts = attempts;
        this.firstBackoff = firstBackoff;
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
        String url = registryUrl + "/schemas/ids/" + Integer.toUnsignedString(id);
        Answer response = get(url);
        if (response.statusCode() == 404) {
            throw new DecodeException(
                    "unknown_schema_id",
                    "schema id " + Integer.toUnsignedString(id) + " is not in the schema registry " + registryUrl + " ("
                            + abbreviate(response.body()) + ")");
        }
        if (response.statusCode() != 200) {
            throw new IllegalStateException("the schema registry answered GET " + url + " with HTTP "
                    + response.statusCode() + " (" + abbreviate(response.body()) + "); check schema_registry_url");
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
                    "schema id " + id + " from " + registryUrl + " cannot be used: " + e.getMessage());
        }
    }

    /** The registry's answer: HTTP status and body. */
    private record Answer(int statusCode, String body) {}

    /**
     * GET with retries of 5xx answers and I/O errors, with a plain {@link HttpURLConnection}: the
     * JDK's {@code HttpClient} leaves a thread in native code that holds the JVM's exit back by up
     * to 300 ms.
     */
    private Answer get(String url) {
        String last = null;
        Duration pause = firstBackoff;
        for (int attempt = 1; attempt <= attempts; attempt++) {
            try {
                HttpURLConnection connection =
                        (HttpURLConnection) URI.create(url).toURL().openConnection();
                connection.setConnectTimeout(5_000);
                connection.setReadTimeout(10_000);
                connection.setRequestProperty("Accept", "application/vnd.schemaregistry.v1+json, application/json");
                int status = connection.getResponseCode();
                InputStream stream = status < 400 ? connection.getInputStream() : connection.getErrorStream();
                String body;
                try (InputStream in = stream) {
                    body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
                if (status < 500) {
                    return new Answer(status, body);
                }
                last = "HTTP " + status + " " + abbreviate(body);
            } catch (IOException e) {
                last = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
            }
            if (attempt < attempts) {
                try {
                    Thread.sleep(pause.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while fetching a schema from " + url, e);
                }
                pause = pause.multipliedBy(2);
            }
        }
        throw new IllegalStateException(
                "schema_registry_unreachable: the schema registry at " + registryUrl + " did not answer GET "
                        + url + " after " + attempts + " attempts (last: " + last
                        + "); the job fails and restarts from its last "
                        + "checkpoint, so no record is lost");
    }

    private static String abbreviate(String s) {
        if (s == null) {
            return "";
        }
        return s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }
}
