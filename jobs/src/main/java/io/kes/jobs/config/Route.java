package io.kes.jobs.config;

import java.io.Serializable;
import java.util.List;
import java.util.Set;

/**
 * One entry of {@code routes:}: which topics go to which index, and how documents get their id.
 *
 * @param topics Kafka topics of this route
 * @param index  target index (or alias, or data stream)
 * @param id     {@code kafka} (default: from topic, partition and offset, so replays overwrite) or
 *               {@code none} (Elasticsearch generates ids: replays then duplicate)
 */
public record Route(List<String> topics, String index, IdStrategy id) implements Serializable {

    static final Set<String> KEYS = Set.of("topics", "index", "id");

    /** How a document's {@code _id} is made. */
    public enum IdStrategy {
        KAFKA, NONE
    }

    static Route from(ConfigNode node) {
        node.allowOnly(KEYS);
        List<String> topics = node.strings("topics");
        if (topics.isEmpty()) {
            throw new ConfigException(node.keyPath("topics") + " is required: the Kafka topics of this route, e.g. topics: [app-logs]");
        }
        String index = node.requiredString("index", "app-logs");
        if (!index.equals(index.toLowerCase()) || index.startsWith("_") || index.startsWith("-") || index.contains(" ")) {
            throw new ConfigException(node.keyPath("index") + " '" + index + "' is not a valid Elasticsearch index name: "
                    + "use lowercase, no spaces, not starting with _ or -");
        }
        IdStrategy id = node.choice("id", IdStrategy.KAFKA, s -> IdStrategy.valueOf(s.toUpperCase()), Set.of("kafka", "none"));
        return new Route(List.copyOf(topics), index, id);
    }
}
