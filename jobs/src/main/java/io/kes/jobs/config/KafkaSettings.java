package io.kes.jobs.config;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The {@code kafka:} section.
 *
 * @param bootstrapServers {@code bootstrap_servers}, required
 * @param groupId          {@code group_id}, default {@code kes}
 * @param startingOffsets  {@code starting_offsets}: committed (default; earliest when the group has none), earliest, latest
 * @param properties       {@code properties}: consumer properties passed through as they are (security, timeouts...)
 */
public record KafkaSettings(String bootstrapServers, String groupId, StartingOffsets startingOffsets,
                            Map<String, String> properties) implements Serializable {

    static final Set<String> KEYS = Set.of("bootstrap_servers", "group_id", "starting_offsets", "properties");

    /** Where a job without a checkpoint starts reading. */
    public enum StartingOffsets {
        COMMITTED, EARLIEST, LATEST
    }

    static KafkaSettings from(ConfigNode node) {
        if (!node.isPresent()) {
            throw new ConfigException("kafka is required, e.g.\nkafka:\n  bootstrap_servers: localhost:9092");
        }
        node.allowOnly(KEYS);
        Map<String, String> properties = new LinkedHashMap<>();
        ConfigNode props = node.section("properties");
        for (String key : props.keys()) { // passed through as they are: any consumer property is allowed
            properties.put(key, props.string(key, null));
        }
        return new KafkaSettings(
                node.requiredString("bootstrap_servers", "localhost:9092"),
                node.string("group_id", "kes"),
                node.choice("starting_offsets", StartingOffsets.COMMITTED, s -> StartingOffsets.valueOf(s.toUpperCase()),
                        Set.of("committed", "earliest", "latest")),
                Map.copyOf(properties));
    }
}
