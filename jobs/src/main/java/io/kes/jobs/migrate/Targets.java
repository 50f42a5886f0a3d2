package io.kes.jobs.migrate;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Where a topic's records go: the index Connect names after the topic (after the index naming
 * transforms {@code RegexRouter} and {@code TimestampRouter}), its data stream
 * ({@code <type>-<dataset>-<namespace>}), or the resource {@code topic.to.external.resource.mapping}
 * names. A topic known by name gives a literal index; {@code topics.regex} gives {@code {_topic}},
 * which kes fills with each record's topic.
 */
final class Targets {

    static final String REGEX_ROUTER = "org.apache.kafka.connect.transforms.RegexRouter";
    static final String TIMESTAMP_ROUTER = "org.apache.kafka.connect.transforms.TimestampRouter";
    private static final Pattern DATE_PATTERN = Pattern.compile("[yMdHhmsS._\\- ]+");

    private Targets() {}

    /** {@code topic.to.external.resource.mapping}: resource by topic, or empty when unused. */
    static Map<String, String> resources(ConnectConfig c, List<String> topics, String regex) {
        String usage = c.choice(
                "external.resource.usage",
                "disabled",
                List.of("index", "datastream", "alias_index", "alias_datastream", "disabled"));
        Map<String, String> byTopic = new LinkedHashMap<>();
        if (usage.equals("disabled")) {
            return byTopic;
        }
        if (regex != null) {
            throw new MigrationException("external.resource.usage with topics.regex: name each topic in topics "
                    + "and its resource in topic.to.external.resource.mapping");
        }
        for (String pair : c.list("topic.to.external.resource.mapping")) {
            String[] parts = pair.split(":", 2);
            if (parts.length != 2 || parts[0].isBlank() || parts[1].isBlank()) {
                throw new MigrationException(
                        "topic.to.external.resource.mapping entry '" + pair + "' is not topic:resource");
            }
            byTopic.put(parts[0].trim(), parts[1].trim());
        }
        for (String topic : topics) {
            if (!byTopic.containsKey(topic)) {
                throw new MigrationException("topic.to.external.resource.mapping names no resource for topic '" + topic
                        + "'; add " + topic + ":<index or data stream>");
            }
        }
        byTopic.put("", usage); // the kind of resource, under a key no topic has
        return byTopic;
    }

    /** The topic's name after the connector's transforms: a literal, or {@code {_topic}} for a pattern's topics. */
    static String name(Migration m, String topic) {
        ConnectConfig c = m.config;
        String name = topic != null ? topic : "{_topic}";
        if (c.has("predicates")) {
            throw new MigrationException("predicates = " + c.get("predicates", "") + ": kes applies no transform "
                    + "conditionally; remove the predicates and the transforms that use them");
        }
        for (String alias : c.list("transforms")) {
            String prefix = "transforms." + alias + ".";
            String type = c.get(prefix + "type", "");
            if (c.has(prefix + "predicate")) {
                throw new MigrationException(prefix + "predicate: kes applies no transform conditionally");
            }
            if (type.equals(REGEX_ROUTER)) {
                name = regexRouter(c, prefix, name);
            } else if (type.equals(TIMESTAMP_ROUTER)) {
                name = timestampRouter(c, prefix, name);
            } else if (!RecordTransforms.handles(type)) {
                throw new MigrationException(prefix + "type = " + (type.isEmpty() ? "(missing)" : type)
                        + ": kes has no single message transforms; it takes RegexRouter and TimestampRouter, which "
                        + "name the index, Debezium's ExtractNewRecordState (cdc: debezium), and ExtractField$Key "
                        + "and ValueToKey, which name the document. Move this transform before Kafka (e.g. into the producer or a stream "
                        + "processor), or drop it");
            }
        }
        return name;
    }

    private static String regexRouter(ConnectConfig c, String prefix, String name) {
        if (name.contains("{")) {
            throw new MigrationException(prefix + "type RegexRouter over "
                    + (name.contains("{_topic}")
                            ? "topics.regex: kes cannot rename a pattern's topics by a regex; list the topics in topics"
                            : "a TimestampRouter's name: put RegexRouter first"));
        }
        Pattern regex;
        try {
            regex = Pattern.compile(c.get(prefix + "regex", ""));
        } catch (PatternSyntaxException e) {
            throw new MigrationException(prefix + "regex is not a valid regex: " + e.getDescription());
        }
        Matcher matcher = regex.matcher(name);
        // RegexRouter renames a topic only when the regex matches all of it, with Matcher.replaceFirst
        return matcher.matches() ? matcher.replaceFirst(c.get(prefix + "replacement", "")) : name;
    }

    private static String timestampRouter(ConnectConfig c, String prefix, String name) {
        String format = c.get(prefix + "timestamp.format", "yyyyMMdd");
        if (!DATE_PATTERN.matcher(format).matches()) {
            throw new MigrationException(prefix + "timestamp.format = " + format + ": kes takes date patterns of "
                    + "y, M, d, H, h, m, s, S and the separators . _ - and space");
        }
        return c.get(prefix + "topic.format", "${topic}-${timestamp}")
                .replace("${topic}", name)
                .replace("${timestamp}", "{@timestamp|" + format + "}");
    }

    /** Lowercased as Connect names indices, except inside kes's placeholders ({@code {@timestamp|yyyyMMdd}}). */
    static String lowercase(String name) {
        StringBuilder out = new StringBuilder();
        int depth = 0;
        for (char ch : name.toCharArray()) {
            depth += ch == '{' ? 1 : ch == '}' ? -1 : 0;
            out.append(depth > 0 ? ch : Character.toLowerCase(ch));
        }
        return out.toString();
    }

    /** Puts the route's {@code index} or {@code data_stream}; true for a data stream. */
    static boolean target(
            Migration m, Map<String, Object> route, Map<String, String> resources, String topic, String name) {
        ConnectConfig c = m.config;
        String type = c.choice("data.stream.type", "none", List.of("none", "logs", "metrics"));
        String dataset = c.get("data.stream.dataset", "");
        if (type.equals("none") != dataset.isEmpty()) {
            throw new MigrationException("data.stream.type and data.stream.dataset go together (Connect refuses "
                    + "one without the other); set both, or neither to write to indices");
        }
        if (c.list("data.stream.timestamp.field").size() > 1) {
            throw new MigrationException("data.stream.timestamp.field lists "
                    + c.list("data.stream.timestamp.field") + ": kes reads the event time from one field "
                    + "(routes[].timestamp_field); keep the one your records hold");
        }
        if (!resources.isEmpty() && topic != null) {
            boolean stream = resources.get("").endsWith("datastream");
            route.put(stream ? "data_stream" : "index", resources.get(topic));
            return stream;
        }
        if (!type.equals("none")) {
            String namespace = c.get("data.stream.namespace", "${topic}").replace("${topic}", name);
            route.put("data_stream", lowercase(type + "-" + dataset + "-" + namespace));
            return true;
        }
        String index = lowercase(name);
        if (index.startsWith("-") || index.startsWith("_")) {
            index = index.substring(1); // as Connect names the index of such a topic
        }
        route.put("index", index);
        return false;
    }
}
