package io.kes.jobs.decode.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.jobs.config.RegistrySettings;
import io.kes.jobs.decode.DecodeException;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The schemas of one route's registry, fetched by id ({@code GET /schemas/ids/{id}}) or GUID
 * ({@code GET /schemas/guids/{guid}}) and kept for the life of the task, with the schemas they
 * reference ({@code references: [{name, subject, version}]}, each fetched once from
 * {@code GET /subjects/{subject}/versions/{version}}, theirs too). Not thread-safe: one per decoder.
 *
 * <p>Whose fault a failure is decides where it goes: an id the registry does not know (HTTP 404)
 * is the record's ({@link DecodeException} {@code unknown_schema_id}, dead-letter topic or stop); a
 * registry that is down after {@link #ATTEMPTS} rounds ({@link RegistryClient}), or answers 401 or
 * anything else unexpected, is not ({@link IllegalStateException}: the job fails and restarts from its
 * last checkpoint, so no record is dead-lettered for an outage).
 */
public final class RegisteredSchemas {

    public static final int ATTEMPTS = 4;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A schema as the registry holds it: type (AVRO, PROTOBUF, JSON), text, and the schemas it references. */
    public record Schema(String type, String text, List<Reference> references) {}

    /**
     * A referenced schema with the name the referencing one uses for it (a .proto import path, an
     * Avro full name, a JSON Schema $ref URL); {@code references} lists every schema reached,
     * depth first, each after those it references itself, each once.
     */
    public record Reference(String name, String subject, int version, String text) {}

    private final RegistryClient registry;
    private final Map<String, Schema> byPath = new HashMap<>();

    public RegisteredSchemas(String registryUrls, RegistrySettings settings) {
        this(new RegistryClient(registryUrls, settings, ATTEMPTS, Duration.ofMillis(500)));
    }

    public RegisteredSchemas(RegistryClient registry) {
        this.registry = registry;
    }

    /** The registry's URLs, as messages may show them. */
    public String shown() {
        return registry.shown();
    }

    /** The schema a record names, from the cache or the registry. */
    public Schema get(WireFrame frame) throws DecodeException {
        Schema schema = byPath.get(frame.path());
        if (schema == null) {
            JsonNode body = fetch(frame.path(), frame.shown());
            Map<String, Reference> references = new LinkedHashMap<>();
            resolve(body.path("references"), references, frame.shown(), 0);
            schema = new Schema(
                    body.path("schemaType").asText("AVRO"), text(body, frame.path()), List.copyOf(references.values()));
            byPath.put(frame.path(), schema);
        }
        return schema;
    }

    private void resolve(JsonNode list, Map<String, Reference> into, String shown, int depth) throws DecodeException {
        if (depth > 32) {
            throw new DecodeException(
                    "unsupported_schema", shown + " has references nested more than 32 deep (a cycle?)");
        }
        for (JsonNode ref : list) {
            String name = ref.path("name").asText();
            String subject = ref.path("subject").asText();
            int version = ref.path("version").asInt(-1);
            if (into.containsKey(name)) {
                continue;
            }
            String path = "/subjects/"
                    + URLEncoder.encode(subject, StandardCharsets.UTF_8).replace("+", "%20") + "/versions/"
                    + (version < 0 ? "latest" : Integer.toString(version));
            String refShown = "reference " + name + " (subject " + subject + " version " + version + ") of " + shown;
            Schema cached = byPath.get(path);
            JsonNode body = cached == null ? fetch(path, refShown) : null;
            if (cached == null) {
                Map<String, Reference> nested = new LinkedHashMap<>();
                resolve(body.path("references"), nested, refShown, depth + 1);
                cached = new Schema(
                        body.path("schemaType").asText("AVRO"), text(body, path), List.copyOf(nested.values()));
                byPath.put(path, cached);
            }
            for (Reference nested : cached.references()) {
                into.putIfAbsent(nested.name(), nested);
            }
            into.put(name, new Reference(name, subject, version, cached.text()));
        }
    }

    private JsonNode fetch(String path, String shown) throws DecodeException {
        RegistryClient.Answer answer = registry.get(path);
        if (answer.statusCode() == 404) {
            throw new DecodeException(
                    "unknown_schema_id",
                    shown + " is not in the schema registry " + registry.shown() + " ("
                            + RegistryClient.abbreviate(answer.body()) + ")");
        }
        if (answer.statusCode() != 200) {
            throw new IllegalStateException("the schema registry answered GET " + answer.url() + " with HTTP "
                    + answer.statusCode() + " (" + RegistryClient.abbreviate(answer.body())
                    + "); check schema_registry_url"
                    + (answer.statusCode() == 401 || answer.statusCode() == 403
                            ? " and the credentials of schema_registry (basic_auth_user_info, username/password or "
                                    + "bearer_token)"
                            : ""));
        }
        try {
            return JSON.readTree(answer.body());
        } catch (IOException e) {
            throw new IllegalStateException(
                    "the schema registry answered GET " + answer.url() + " with something that is not JSON: "
                            + RegistryClient.abbreviate(answer.body()),
                    e);
        }
    }

    private String text(JsonNode body, String path) {
        String text = body.path("schema").textValue();
        if (text == null) {
            throw new IllegalStateException("the schema registry " + registry.shown() + " answered GET " + path
                    + " without a schema: " + RegistryClient.abbreviate(body.toString()));
        }
        return text;
    }

    /** The texts of a schema's references by name, for parsers that take them so. */
    public static Map<String, String> texts(Schema schema) {
        Map<String, String> texts = new LinkedHashMap<>();
        for (Reference reference : schema.references()) {
            texts.put(reference.name(), reference.text());
        }
        return texts;
    }

    /** The texts of a schema's references, each after those it references. */
    public static List<String> orderedTexts(Schema schema) {
        List<String> texts = new ArrayList<>();
        for (Reference reference : schema.references()) {
            texts.add(reference.text());
        }
        return texts;
    }
}
