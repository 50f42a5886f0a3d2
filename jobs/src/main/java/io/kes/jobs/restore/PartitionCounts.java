package io.kes.jobs.restore;

import io.kes.jobs.config.KafkaSettings;
import io.kes.jobs.preflight.KafkaCheck;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The partition counts kept with a job's sources ({@link JobSources#partitions()}), read from Kafka at submission. */
public final class PartitionCounts {

    private static final Logger LOG = LoggerFactory.getLogger(PartitionCounts.class);
    private static final long TIMEOUT_SECONDS = 5;

    private PartitionCounts() {}

    /**
     * Each of {@code topics}' partition count now; empty when Kafka does not answer in time or a
     * topic does not exist yet: then nothing is kept or compared, and the job starts as before.
     */
    public static Map<String, Integer> read(KafkaSettings kafka, List<String> topics) {
        if (topics.isEmpty()) {
            return Map.of();
        }
        try (Admin admin = Admin.create(KafkaCheck.adminProperties(kafka))) {
            Map<String, TopicDescription> described =
                    admin.describeTopics(topics).allTopicNames().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            Map<String, Integer> counts = new TreeMap<>();
            described.forEach((topic, d) -> counts.put(topic, d.partitions().size()));
            return counts;
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            LOG.info(
                    "Kafka did not give the partition counts of {} ({}): a restore will not compare them",
                    topics,
                    e.toString());
            return Map.of();
        }
    }
}
