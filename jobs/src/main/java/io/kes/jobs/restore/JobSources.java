package io.kes.jobs.restore;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kes.jobs.config.KesConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a job reads from Kafka: its topics (or topic pattern) and consumer group. A checkpoint
 * holds Kafka positions of exactly these sources, so one may only be restored into a job with the
 * same; kes keeps this description beside each job's checkpoints in {@value #FILE}.
 *
 * <p>Why a file of kes's own and not the checkpoint itself: the checkpoint's Kafka state lists
 * the partitions it had assigned (never the group, nor a pattern, nor a topic still without
 * partitions) and is readable only through Flink's internal metadata and the connector's state
 * serializers, which change between versions. The file is plain JSON, written when the job is
 * submitted, and survives every upgrade.
 *
 * <p>{@code partitions}: each named topic's partition count when the job was submitted, as far as
 * Kafka said (empty when it did not). Not part of what must match: a restore is right with more
 * partitions too, but ids may then have moved partition, which {@link Checkpoints#restoreLatest}
 * warns of.
 */
public record JobSources(
        String jobName, List<String> topics, String topicPattern, String groupId, Map<String, Integer> partitions) {

    public static final String FILE = "kes-sources.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    public JobSources {
        topics = topics == null ? List.of() : List.copyOf(new TreeSet<>(topics)); // order in the config does not matter
        partitions = partitions == null ? Map.of() : Map.copyOf(partitions);
    }

    /** Without partition counts (not known). */
    public JobSources(String jobName, List<String> topics, String topicPattern, String groupId) {
        this(jobName, topics, topicPattern, groupId, Map.of());
    }

    /** The same sources with the partition counts Kafka gave now. */
    public JobSources withPartitions(Map<String, Integer> counts) {
        return new JobSources(jobName, topics, topicPattern, groupId, counts);
    }

    public static JobSources of(KesConfig config) {
        return config.topicPattern() != null
                ? new JobSources(
                        config.job.name(), List.of(), config.topicPattern().pattern(), config.kafka.groupId())
                : new JobSources(config.job.name(), config.allTopics(), null, config.kafka.groupId());
    }

    /** Whether a checkpoint of {@code other} holds positions of the same sources (the job name may differ). */
    public boolean sameSourcesAs(JobSources other) {
        return topics.equals(other.topics)
                && java.util.Objects.equals(topicPattern, other.topicPattern)
                && java.util.Objects.equals(groupId, other.groupId);
    }

    /** "job 'a' (topics [x, y], group 'g')". */
    public String describe() {
        return "job '" + jobName + "' ("
                + (topicPattern != null ? "topic pattern '" + topicPattern + "'" : "topics " + topics) + ", group '"
                + groupId + "')";
    }

    public void writeTo(Path dir) {
        ObjectNode node = JSON.createObjectNode();
        node.put("job", jobName);
        node.putPOJO("topics", topics);
        if (topicPattern != null) {
            node.put("topic_pattern", topicPattern);
        }
        node.put("group_id", groupId);
        if (!partitions.isEmpty()) {
            node.putPOJO("partitions", new TreeMap<>(partitions));
        }
        try {
            Files.createDirectories(dir);
            Path tmp = dir.resolve(FILE + ".tmp");
            Files.write(tmp, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(node));
            Files.move(
                    tmp,
                    dir.resolve(FILE),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + dir.resolve(FILE), e);
        }
    }

    /** The description in {@code dir}, if one was written there. */
    public static Optional<JobSources> readFrom(Path dir) {
        Path file = dir.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try {
            JsonNode node = JSON.readTree(file.toFile());
            List<String> topics = new ArrayList<>();
            node.path("topics").forEach(t -> topics.add(t.asText()));
            Map<String, Integer> partitions = new TreeMap<>();
            node.path("partitions")
                    .fields()
                    .forEachRemaining(
                            e -> partitions.put(e.getKey(), e.getValue().asInt()));
            return Optional.of(new JobSources(
                    node.path("job").asText(),
                    topics,
                    node.hasNonNull("topic_pattern") ? node.get("topic_pattern").asText() : null,
                    node.path("group_id").asText(),
                    partitions));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }
}
