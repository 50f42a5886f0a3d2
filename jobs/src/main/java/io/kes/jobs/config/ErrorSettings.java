package io.kes.jobs.config;

import java.io.Serializable;
import java.util.Set;

/**
 * {@code errors:}: what happens to a record that cannot be decoded or that Elasticsearch refuses
 * for good (a mapping conflict, an index name it rejects).
 *
 * @param tolerance       {@code tolerance}: {@code none} (default) stops the job naming the record's
 *                        topic/partition/offset and the reason; {@code all} sends it to the dead-letter topic
 * @param deadLetterTopic {@code dead_letter_topic}: required with tolerance all; the original key and value
 *                        with headers saying where the record came from and why it failed
 */
public record ErrorSettings(Tolerance tolerance, String deadLetterTopic) implements Serializable {

    static final Set<String> KEYS = Set.of("tolerance", "dead_letter_topic");

    /** Stop, or dead-letter and go on. */
    public enum Tolerance {
        NONE,
        ALL
    }

    public boolean deadLetters() {
        return tolerance == Tolerance.ALL;
    }

    static ErrorSettings from(ConfigNode node) {
        node.allowOnly(KEYS);
        Tolerance tolerance = node.choice(
                "tolerance", Tolerance.NONE, s -> Tolerance.valueOf(s.toUpperCase()), Set.of("none", "all"));
        String topic = node.string("dead_letter_topic", null);
        if (tolerance == Tolerance.ALL && (topic == null || topic.isBlank())) {
            throw new ConfigException(node.keyPath("dead_letter_topic") + " is required with errors.tolerance: all, "
                    + "so that no failed record is dropped; e.g. dead_letter_topic: kes-dead-letters");
        }
        return new ErrorSettings(tolerance, topic);
    }
}
