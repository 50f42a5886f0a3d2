package io.kes.jobs.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.kes.connector.ElasticsearchSinkOptions;
import io.kes.connector.SinkSettings;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job's YAML config, validated when it is loaded. Sections:
 * <ul>
 *   <li>{@code elasticsearch}, {@code bulk}, {@code retry}: the sink options, keys as declared in
 *       {@link ElasticsearchSinkOptions} (e.g. {@code bulk: {max_docs: 1000}});
 *   <li>{@code kafka}: {@link KafkaSettings};
 *   <li>{@code routes}: a list of {@link Route};
 *   <li>{@code schema_registry}: {@link RegistrySettings}, for the routes that read from one;
 *   <li>{@code job}: {@link JobSettings}.
 * </ul>
 * See docs/config-reference.md for every key.
 */
public final class KesConfig implements Serializable {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(KesConfig.class);
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    static final Set<String> SINK_SECTIONS = Set.of("elasticsearch", "bulk", "retry");

    /** The sink options as read from the YAML (e.g. to derive a one-host client from). */
    public final Configuration sinkOptions;
    /** The same options, validated once when the config was loaded. */
    public final SinkSettings sink;

    public final KafkaSettings kafka;
    public final List<Route> routes;
    public final ErrorSettings errors;
    public final JobSettings job;
    /** How the routes' schema registry is reached: credentials and TLS ({@link RegistrySettings#NONE} when unset). */
    public final RegistrySettings schemaRegistry;

    private KesConfig(
            Configuration sinkOptions,
            SinkSettings sink,
            KafkaSettings kafka,
            List<Route> routes,
            ErrorSettings errors,
            JobSettings job,
            RegistrySettings schemaRegistry) {
        this.sinkOptions = sinkOptions;
        this.sink = sink;
        this.kafka = kafka;
        this.routes = routes;
        this.errors = errors;
        this.job = job;
        this.schemaRegistry = schemaRegistry;
    }

    public static KesConfig load(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new ConfigException("config file " + file.toAbsolutePath()
                    + " does not exist; pass --config <mapping.yaml> (see jobs/config/example.yaml)");
        }
        try {
            return parse(Files.readString(file), System.getenv());
        } catch (IOException e) {
            throw new ConfigException("could not read " + file + ": " + e.getMessage(), e);
        }
    }

    public static KesConfig parse(String yaml, Map<String, String> env) {
        JsonNode tree;
        try {
            tree = YAML.readTree(yaml);
        } catch (IOException e) {
            throw new ConfigException("the config is not valid YAML: " + e.getMessage(), e);
        }
        ConfigProblems problems = new ConfigProblems();
        ConfigNode root = new ConfigNode("", tree, new SecretResolver(env), problems);
        Set<String> topLevel = new TreeSet<>(SINK_SECTIONS);
        topLevel.addAll(List.of("kafka", "routes", "errors", "job", "schema_registry"));
        root.allowOnly(topLevel); // throws only when the file is not a mapping at all

        // Each part is read on its own and its problems kept, so one run reports them all.
        Configuration sinkOptions = sinkOptions(root);
        boolean sinkOptionsRead = problems.count() == 0; // else their combined checks would repeat what is reported
        KafkaSettings kafka = problems.attempt(() -> KafkaSettings.from(root.section("kafka")), null);
        List<Route> routes = new ArrayList<>();
        List<ConfigNode> routeNodes = problems.attempt(() -> root.list("routes"), List.of());
        for (ConfigNode r : routeNodes) {
            Route route = problems.attempt(() -> Route.from(r), null);
            if (route != null) {
                routes.add(route);
            }
        }
        if (routeNodes.isEmpty() && !root.misspelt("routes")) {
            problems.add(
                    "routes is empty: add at least one, e.g.\nroutes:\n  - topics: [app-logs]\n    index: app-logs");
        }
        Set<String> seen = new HashSet<>();
        for (Route route : routes) {
            for (String topic : route.topics()) {
                if (!seen.add(topic)) {
                    problems.add("topic '" + topic + "' appears in more than one route; each topic goes to one route");
                }
            }
        }
        if (routes.size() == routeNodes.size()) {
            sharedVersionedTargets(routes, problems);
        }
        JobSettings job = problems.attempt(() -> JobSettings.from(root.section("job")), null);
        ErrorSettings errors = problems.attempt(() -> ErrorSettings.from(root.section("errors")), null);
        RegistrySettings registry =
                problems.attempt(() -> RegistrySettings.from(root.section("schema_registry")), RegistrySettings.NONE);
        if (root.section("schema_registry").isPresent()
                && routes.size() == routeNodes.size()
                && routes.stream().noneMatch(Route::readsFromARegistry)) {
            problems.add(
                    "schema_registry only applies to routes that read from a schema registry (format or "
                            + "key_format confluent-avro, protobuf or json-schema), and no route does; remove it or set such a route's format");
        }
        SinkSettings sink = null;
        if (sinkOptionsRead) {
            try {
                sink = SinkSettings.from(sinkOptions); // validates the sink options together now, not on a task manager
            } catch (IllegalArgumentException e) {
                problems.add(e.getMessage());
            }
        }
        problems.throwIfAny();
        for (Route route : routes) {
            if (route.id().kind() == Route.IdSpec.Kind.NONE) {
                LOG.warn(
                        "route to {} has id: none: Elasticsearch generates ids, so records replayed after a failure are "
                                + "indexed twice. Use id: kafka for idempotent writes.",
                        route.target());
            }
        }
        return new KesConfig(sinkOptions, sink, kafka, List.copyOf(routes), errors, job, registry);
    }

    /** Maps {@code elasticsearch:}, {@code bulk:}, {@code retry:} onto the sink's declared options. */
    private static Configuration sinkOptions(ConfigNode root) {
        Map<String, ConfigOption<?>> byKey = sinkOptionsByKey();
        Configuration options = new Configuration();
        for (String section : SINK_SECTIONS) {
            ConfigNode node = root.section(section);
            Set<String> allowed = new TreeSet<>();
            byKey.keySet().stream()
                    .filter(k -> k.startsWith(section + "."))
                    .forEach(k -> allowed.add(k.substring(section.length() + 1)));
            // a key with a dot is a key of a mapping inside the section: aws_sigv4.region is {aws_sigv4: {region: ..}}
            Set<String> direct = new TreeSet<>();
            Map<String, Set<String>> nested = new TreeMap<>();
            for (String key : allowed) {
                int dot = key.indexOf('.');
                direct.add(dot < 0 ? key : key.substring(0, dot));
                if (dot >= 0) {
                    nested.computeIfAbsent(key.substring(0, dot), n -> new TreeSet<>())
                            .add(key.substring(dot + 1));
                }
            }
            node.allowOnly(direct);
            nested.forEach((name, keys) -> node.section(name).allowOnly(keys));
            for (String key : allowed) {
                int dot = key.indexOf('.');
                ConfigNode holder = dot < 0 ? node : node.section(key.substring(0, dot));
                String leaf = key.substring(dot + 1);
                if (!holder.has(leaf)) {
                    continue;
                }
                String fullKey = section + "." + key;
                ConfigOption<?> option = byKey.get(fullKey);
                root.problems().attempt(() -> {
                    String value = option.key().equals(ElasticsearchSinkOptions.HOSTS.key())
                            ? String.join(";", holder.strings(leaf))
                            : holder.string(leaf, null);
                    options.setString(fullKey, value);
                    if (option.defaultValue() instanceof Enum<?>) {
                        return; // SinkSettings reads these: it also takes older spellings, and names the allowed values
                    }
                    try {
                        options.get(option); // parse now, to name the key if it is malformed
                    } catch (IllegalArgumentException e) {
                        options.removeKey(fullKey);
                        throw new ConfigException(fullKey + " has an invalid value '" + value + "': " + e.getMessage()
                                + ". " + ElasticsearchSinkOptions.meaning(option));
                    }
                });
            }
        }
        return options;
    }

    /** The sink's options by key, from the one list that declares them. */
    static Map<String, ConfigOption<?>> sinkOptionsByKey() {
        Map<String, ConfigOption<?>> options = new LinkedHashMap<>();
        ElasticsearchSinkOptions.all().forEach(option -> options.put(option.key(), option));
        return options;
    }

    /** The route a topic belongs to: the first that lists it or whose pattern matches it. */
    public Route routeFor(String topic) {
        for (Route route : routes) {
            if (route.matches(topic)) {
                return route;
            }
        }
        throw new IllegalStateException("no route for topic " + topic);
    }

    /**
     * {@code version: kafka-offset} orders the writes of one partition; an index written by two
     * routes gets the same ids from two topics, whose offsets are unrelated ({@link Route}).
     */
    private static void sharedVersionedTargets(List<Route> routes, ConfigProblems problems) {
        Map<String, List<Integer>> byTarget = new LinkedHashMap<>();
        for (int i = 0; i < routes.size(); i++) {
            byTarget.computeIfAbsent(routes.get(i).target(), t -> new ArrayList<>())
                    .add(i);
        }
        byTarget.forEach((target, indices) -> {
            if (indices.size() > 1
                    && indices.stream().anyMatch(i -> routes.get(i).versionByOffset())) {
                problems.add(String.join(
                                " and ",
                                indices.stream().map(i -> "routes[" + i + "]").toList()) + " write '"
                        + target + "' and one has version: kafka-offset: the offsets of different topics are"
                        + " unrelated, so an id's newer value from one topic may carry a lower version than its"
                        + " older value from the other, be refused with a 409 and be lost. Give a kafka-offset route"
                        + " an index of its own, or leave version out");
            }
        });
    }

    /** Every topic named in a route (pattern routes add {@link #topicPattern()}). */
    public List<String> allTopics() {
        List<String> topics = new ArrayList<>();
        routes.forEach(r -> topics.addAll(r.topics()));
        return topics;
    }

    /** One regex for all routes when any route uses a topic pattern, else null. */
    public java.util.regex.Pattern topicPattern() {
        if (routes.stream().noneMatch(r -> r.topicPattern() != null)) {
            return null;
        }
        List<String> alternatives = new ArrayList<>();
        for (Route r : routes) {
            if (r.topicPattern() != null) {
                alternatives.add("(?:" + r.topicPattern() + ")");
            }
            r.topics().forEach(t -> alternatives.add(java.util.regex.Pattern.quote(t)));
        }
        return java.util.regex.Pattern.compile(String.join("|", alternatives));
    }

    /**
     * The {@code job:} section: {@code name} (default kes), {@code parallelism} (0: Flink's
     * default), {@code checkpoint_interval} (default: the Flink configuration's, else 10s) and
     * {@code bounded} (stop at the offsets that were the latest at start; for tests and the quick start).
     */
    public record JobSettings(String name, int parallelism, Duration checkpointInterval, boolean bounded)
            implements Serializable {

        static final Set<String> KEYS = Set.of("name", "parallelism", "checkpoint_interval", "bounded");
        public static final Duration DEFAULT_CHECKPOINT_INTERVAL = Duration.ofSeconds(10);

        static JobSettings from(ConfigNode node) {
            node.allowOnly(KEYS);
            return new JobSettings(
                    node.string("name", "kes"),
                    node.integer("parallelism", 0, 0),
                    node.duration("checkpoint_interval", null), // null: from the Flink configuration, else 10 s
                    node.bool("bounded", false));
        }
    }
}
