package io.kes.jobs.preflight;

import io.kes.jobs.config.DidYouMean;
import io.kes.jobs.config.KafkaSettings;
import io.kes.jobs.config.KesConfig;
import io.kes.jobs.config.Route;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Kafka: the brokers answer, each route's topics exist (or its pattern matches some), their
 * partitions, and the consumer group's committed offsets and lag. Failures name the setting.
 */
public final class KafkaCheck {

    /** How long one admin call may take: a wrong bootstrap address must fail well within 30 s. */
    static final long TIMEOUT_SECONDS = 10;

    /** To the log file only (log4j2-cli.properties): the console gets the table. */
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(KafkaCheck.class);

    private final KesConfig config;

    KafkaCheck(KesConfig config) {
        this.config = config;
    }

    /** {@code outageTolerated}: a job restored from a checkpoint rides out a broker outage, so no answer is a warning then. */
    void check(PreflightReport report, boolean outageTolerated) {
        KafkaSettings kafka = config.kafka;
        String subject = "kafka " + kafka.bootstrapServers();
        try (Admin admin = Admin.create(adminProperties(kafka))) {
            int brokers;
            Set<String> existing;
            try {
                brokers = admin.describeCluster()
                        .nodes()
                        .get(TIMEOUT_SECONDS, TimeUnit.SECONDS)
                        .size();
                existing = new TreeSet<>(admin.listTopics().names().get(TIMEOUT_SECONDS, TimeUnit.SECONDS));
            } catch (TimeoutException | ExecutionException e) {
                LOG.info("check of Kafka at {} failed", kafka.bootstrapServers(), e);
                String why = "cannot connect within " + TIMEOUT_SECONDS + " s (" + ElasticsearchCheck.describe(e)
                        + "): check "
                        + "kafka.bootstrap_servers (host:port of a broker, e.g. localhost:9092)"
                        + (kafka.properties().keySet().stream()
                                        .anyMatch(k -> k.startsWith("security") || k.startsWith("sasl"))
                                ? " and the security settings in kafka.properties"
                                : "");
                if (outageTolerated) {
                    report.warn(subject, why + "; restored from a checkpoint, the job waits for Kafka");
                } else {
                    report.fail(subject, why);
                }
                return;
            }
            report.ok(subject, brokers + " broker(s), " + existing.size() + " topic(s)");
            for (int i = 0; i < config.routes.size(); i++) {
                route(report, admin, "routes[" + i + "]", config.routes.get(i), existing);
            }
            if (config.errors.deadLetters() && !existing.contains(config.errors.deadLetterTopic())) {
                report.warn(
                        "errors.dead_letter_topic",
                        "topic " + config.errors.deadLetterTopic() + " does not exist: create it "
                                + "(or rely on the brokers' auto.create.topics.enable)");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            report.fail(subject, "interrupted");
        }
    }

    @VisibleForTesting
    void route(PreflightReport report, Admin admin, String path, Route route, Set<String> existing)
            throws InterruptedException {
        List<String> topics = new ArrayList<>();
        if (route.topicPattern() != null) {
            Pattern pattern = Pattern.compile(route.topicPattern());
            existing.stream().filter(t -> pattern.matcher(t).matches()).forEach(topics::add);
            if (topics.isEmpty()) {
                report.warn(
                        path + " topics",
                        "topic_pattern '" + route.topicPattern() + "' matches no topic yet; topics created "
                                + "later join within 30 s");
                return;
            }
        } else {
            for (String topic : route.topics()) {
                if (existing.contains(topic)) {
                    topics.add(topic);
                } else {
                    String hint = DidYouMean.closest(topic, existing)
                            .map(t -> " Did you mean '" + t + "'?")
                            .orElse("");
                    report.fail(
                            path + " topics",
                            "topic '" + topic + "' does not exist in Kafka at " + config.kafka.bootstrapServers() + "."
                                    + hint + " Fix " + path + ".topics, or create the topic");
                }
            }
            if (topics.isEmpty()) {
                return;
            }
        }
        if (route.id().kind() == Route.IdSpec.Kind.KAFKA) {
            collidingTopics(topics)
                    .ifPresent(pair -> report.fail(
                            path + " id",
                            "topics '" + pair.get(0) + "' and '" + pair.get(1)
                                    + "' have the same 32-bit topic hash, so id: kafka gives records of the same partition and offset the same id "
                                    + "and one overwrites the other in " + route.target()
                                    + ". Route them to different indices, or use id: key or "
                                    + "{field: ...}"));
        }
        try {
            Map<String, TopicDescription> described =
                    admin.describeTopics(topics).allTopicNames().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            List<TopicPartition> partitions = new ArrayList<>();
            List<String> shown = new ArrayList<>();
            for (String topic : topics) {
                int n = described.get(topic).partitions().size();
                shown.add(topic + " (" + n + " partition" + (n == 1 ? "" : "s") + ")");
                for (int p = 0; p < n; p++) {
                    partitions.add(new TopicPartition(topic, p));
                }
            }
            report.ok(path + " topics", String.join(", ", shown));
            report.ok(path + " consumer group", lag(admin, partitions));
        } catch (TimeoutException | ExecutionException e) {
            report.warn(path + " topics", "could not describe " + topics + ": " + ElasticsearchCheck.describe(e));
        }
    }

    /** Two topics whose {@link io.kes.connector.KafkaCoordinateId} prefixes are equal (String.hashCode), if any. */
    static java.util.Optional<List<String>> collidingTopics(List<String> topics) {
        Map<Integer, String> byHash = new java.util.HashMap<>();
        for (String topic : topics) {
            String other = byHash.putIfAbsent(topic.hashCode(), topic);
            if (other != null && !other.equals(topic)) {
                return java.util.Optional.of(List.of(other, topic));
            }
        }
        return java.util.Optional.empty();
    }

    /** The group's committed offsets against the partitions' ends; without commits, where the job will start. */
    private String lag(Admin admin, List<TopicPartition> partitions)
            throws InterruptedException, ExecutionException, TimeoutException {
        String group = config.kafka.groupId();
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
        partitions.forEach(tp -> {
            latest.put(tp, OffsetSpec.latest());
            earliest.put(tp, OffsetSpec.earliest());
        });
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
                admin.listOffsets(latest).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> starts =
                admin.listOffsets(earliest).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        long records = 0;
        long lag = 0;
        int withCommits = 0;
        for (TopicPartition tp : partitions) {
            long end = ends.get(tp).offset();
            records += end - starts.get(tp).offset();
            OffsetAndMetadata c = committed.get(tp);
            if (c != null) {
                withCommits++;
                lag += Math.max(0, end - c.offset());
            }
        }
        String start = config.kafka.startingOffsets().name().toLowerCase();
        if (withCommits == 0) {
            return String.format(
                    "group %s has no committed offsets: a new job starts at %s (%,d records in the topics)",
                    group, start.equals("committed") ? "earliest" : start, records);
        }
        return String.format(
                "group %s: lag %,d records (%d of %d partitions committed; %,d records in the topics)",
                group, lag, withCommits, partitions.size(), records);
    }

    /** The bootstrap servers and the connection and security properties of {@code kafka.properties}. */
    public static Properties adminProperties(KafkaSettings kafka) {
        Properties props = new Properties();
        kafka.properties().forEach((k, v) -> {
            if (k.startsWith("security.")
                    || k.startsWith("sasl.")
                    || k.startsWith("ssl.")
                    || k.equals("client.dns.lookup")) {
                props.put(k, v);
            }
        });
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, "kes-check");
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(TIMEOUT_SECONDS * 1000));
        props.put(AdminClientConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG, "5000");
        return props;
    }
}
