package io.kes.jobs.config;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;

/**
 * The {@code kafka:} section.
 *
 * @param bootstrapServers {@code bootstrap_servers}, required
 * @param groupId          {@code group_id}, default {@code kes}
 * @param startingOffsets  {@code starting_offsets}: committed (default; earliest when the group has none), earliest, latest,
 *                         or timestamp:&lt;ISO-8601 or epoch ms&gt; (the first record at or after that time)
 * @param startingTimestampMillis the time of {@code timestamp:...}, else -1
 * @param properties       {@code properties}: consumer properties passed through as they are (security, timeouts...)
 */
public record KafkaSettings(
        String bootstrapServers,
        String groupId,
        StartingOffsets startingOffsets,
        long startingTimestampMillis,
        Map<String, String> properties)
        implements Serializable {

    static final Set<String> KEYS = Set.of("bootstrap_servers", "group_id", "starting_offsets", "properties");

    /** Where a job without a checkpoint starts reading. */
    public enum StartingOffsets {
        COMMITTED,
        EARLIEST,
        LATEST,
        TIMESTAMP
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
        String start = node.string("starting_offsets", "committed").trim();
        long timestamp = -1;
        StartingOffsets starting;
        if (start.startsWith("timestamp:")) {
            starting = StartingOffsets.TIMESTAMP;
            timestamp = parseTimestamp(
                    node.keyPath("starting_offsets"),
                    start.substring("timestamp:".length()).trim());
        } else {
            starting = node.choice(
                    "starting_offsets",
                    StartingOffsets.COMMITTED,
                    s -> StartingOffsets.valueOf(s.toUpperCase()),
                    Set.of("committed", "earliest", "latest", "timestamp:<time>"));
        }
        return new KafkaSettings(
                node.requiredString("bootstrap_servers", "localhost:9092"),
                node.string("group_id", "kes"),
                starting,
                timestamp,
                Map.copyOf(properties));
    }

    /**
     * Every field, with the values of secret properties hidden: Kafka's password-typed settings
     * ({@code sasl.jaas.config}, {@code ssl.*.password}, ...) and any key that names a password,
     * secret or token. A record's own toString would print them to whatever logs the settings.
     */
    @Override
    public String toString() {
        Map<String, String> shown = new LinkedHashMap<>();
        properties.forEach((key, value) -> shown.put(key, isSecret(key) ? "[hidden]" : value));
        return "KafkaSettings[bootstrapServers=" + bootstrapServers + ", groupId=" + groupId + ", startingOffsets="
                + startingOffsets + ", startingTimestampMillis=" + startingTimestampMillis + ", properties=" + shown
                + "]";
    }

    static boolean isSecret(String key) {
        String lower = key.toLowerCase(java.util.Locale.ROOT);
        return isPasswordType(ConsumerConfig.configDef(), key)
                || isPasswordType(ProducerConfig.configDef(), key)
                || lower.contains("password")
                || lower.contains("secret")
                || lower.contains("token")
                || lower.contains("jaas");
    }

    private static boolean isPasswordType(ConfigDef definitions, String key) {
        ConfigDef.ConfigKey definition = definitions.configKeys().get(key);
        return definition != null && definition.type == ConfigDef.Type.PASSWORD;
    }

    private static long parseTimestamp(String key, String value) {
        try {
            return value.matches("\\d+")
                    ? Long.parseLong(value)
                    : java.time.OffsetDateTime.parse(value).toInstant().toEpochMilli();
        } catch (RuntimeException e) {
            throw new ConfigException(
                    key + " timestamp '" + value + "' must be epoch milliseconds or an ISO-8601 time with offset, "
                            + "e.g. timestamp:2026-11-01T00:00:00Z");
        }
    }
}
