package io.kes.jobs.cli;

import io.kes.jobs.config.KafkaSettings;
import io.kes.jobs.config.KesConfig;
import io.kes.jobs.config.Route;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * The lag {@code bin/kes run} prints per route: each partition's end offset (asked from Kafka)
 * minus the next offset the source reads: after its position, or, in a partition it has not read
 * from yet, where it resumes ({@link #resumeAt}).
 */
final class RouteLag {

    private final KesConfig config;

    RouteLag(KesConfig config) {
        this.config = config;
    }

    /**
     * One partition: its end offset, the source's position (the last record it emitted; negative
     * before the first) and, for a partition not read from yet, the offset the source resumes at,
     * when known.
     */
    record Partition(long end, long position, OptionalLong resumeAt) {

        /** Records between the next one the source reads and the end; empty when that next one is unknown. */
        OptionalLong lag() {
            if (position >= 0) {
                return OptionalLong.of(Math.max(0, end - (position + 1)));
            }
            // Not offset 0: a job restored at its topics' end would show the whole topic as lag until a record came.
            return resumeAt.isPresent()
                    ? OptionalLong.of(Math.max(0, end - resumeAt.getAsLong()))
                    : OptionalLong.empty();
        }
    }

    /**
     * Where the source reads first in a partition it has not read from yet: the offset it committed
     * on its last checkpoint; else, restored, the group's committed offset (kes commits each
     * checkpoint's offsets to the group, so it is the restored one unless a savepoint older than
     * the last checkpoint was chosen). Restored without either, the offset is in the checkpoint,
     * which the source commits at its first checkpoint: unknown until then ({@code sourceCommits}
     * false). After that, or on a fresh start, what {@code starting_offsets} says
     * ({@code startOffset}: earliest, latest or at the timestamp; committed takes the group's first):
     * a checkpoint taken before a partition's first record holds that rule, not an offset, and the
     * source resolves it as a fresh start does.
     */
    static OptionalLong resumeAt(
            boolean restored,
            KafkaSettings.StartingOffsets starting,
            OptionalLong sourceCommitted,
            boolean sourceCommits,
            OptionalLong groupCommitted,
            OptionalLong startOffset) {
        if (sourceCommitted.isPresent()) {
            return sourceCommitted;
        }
        if ((restored || starting == KafkaSettings.StartingOffsets.COMMITTED) && groupCommitted.isPresent()) {
            return groupCommitted;
        }
        if (restored && !sourceCommits) {
            return OptionalLong.empty();
        }
        return startOffset;
    }

    /** A route's lag, summed over its partitions; a lower bound (">= n") when some partition's is unknown. */
    static String total(List<OptionalLong> lags) {
        long sum = lags.stream()
                .filter(OptionalLong::isPresent)
                .mapToLong(OptionalLong::getAsLong)
                .sum();
        boolean unknown = lags.stream().anyMatch(OptionalLong::isEmpty);
        return (unknown ? ">= " : "") + String.format("%,d", sum);
    }

    /** Per route (named by its target): end offsets minus the next offset the source reads, summed over the route's partitions. */
    String of(Admin admin, boolean restored) {
        Map<TopicPartition, Long> positions =
                byPartition(ProgressReporter.kafkaOffsets(ProgressReporter.CURRENT_OFFSET));
        if (positions.isEmpty()) {
            return "-";
        }
        Map<String, List<OptionalLong>> byRoute = new LinkedHashMap<>();
        try {
            Map<TopicPartition, Long> ends = offsets(admin, positions.keySet(), tp -> OffsetSpec.latest());
            Set<TopicPartition> unread = new HashSet<>();
            positions.forEach((tp, position) -> {
                if (position < 0) {
                    unread.add(tp);
                }
            });
            Map<TopicPartition, OptionalLong> resume =
                    unread.isEmpty() ? Map.of() : resumeAt(admin, unread, ends, restored);
            positions.forEach((tp, position) -> byRoute.computeIfAbsent(routeName(tp.topic()), r -> new ArrayList<>())
                    .add(new Partition(ends.get(tp), position, resume.getOrDefault(tp, OptionalLong.empty())).lag()));
        } catch (Exception e) {
            return "? (" + e.getClass().getSimpleName() + ")";
        }
        List<String> parts = new ArrayList<>();
        byRoute.forEach((route, lags) -> parts.add(byRoute.size() == 1 ? total(lags) : route + " " + total(lags)));
        return String.join(", ", parts);
    }

    /** {@link #resumeAt} of each partition not read from yet, with the offsets it needs asked from Kafka. */
    private Map<TopicPartition, OptionalLong> resumeAt(
            Admin admin, Set<TopicPartition> unread, Map<TopicPartition, Long> ends, boolean restored)
            throws Exception {
        Map<TopicPartition, Long> sourceCommitted =
                byPartition(ProgressReporter.kafkaOffsets(ProgressReporter.COMMITTED_OFFSET));
        // Flink's counter of the source's successful offset commits
        boolean sourceCommits = ProgressReporter.sum("commitsSucceeded", "Source") > 0;
        KafkaSettings.StartingOffsets starting = config.kafka.startingOffsets();
        Map<TopicPartition, Long> group = new HashMap<>();
        if (restored || starting == KafkaSettings.StartingOffsets.COMMITTED) {
            admin.listConsumerGroupOffsets(config.kafka.groupId())
                    .partitionsToOffsetAndMetadata()
                    .get(3, TimeUnit.SECONDS)
                    .forEach((tp, committed) -> {
                        if (committed != null) {
                            group.put(tp, committed.offset());
                        }
                    });
        }
        Map<TopicPartition, Long> start = switch (starting) {
            case LATEST -> ends;
            case TIMESTAMP ->
                offsets(admin, unread, tp -> OffsetSpec.forTimestamp(config.kafka.startingTimestampMillis()));
            case COMMITTED, EARLIEST -> offsets(admin, unread, tp -> OffsetSpec.earliest());
        };
        Map<TopicPartition, OptionalLong> resume = new HashMap<>();
        for (TopicPartition tp : unread) {
            long startAt = start.getOrDefault(tp, -1L);
            resume.put(
                    tp,
                    resumeAt(
                            restored,
                            starting,
                            known(sourceCommitted.getOrDefault(tp, -1L)),
                            sourceCommits,
                            known(group.getOrDefault(tp, -1L)),
                            // no record at or after the timestamp: the source waits at the end
                            starting == KafkaSettings.StartingOffsets.TIMESTAMP && startAt < 0
                                    ? known(ends.get(tp))
                                    : known(startAt)));
        }
        return resume;
    }

    private static OptionalLong known(long offset) {
        return offset < 0 ? OptionalLong.empty() : OptionalLong.of(offset);
    }

    private static Map<TopicPartition, Long> offsets(
            Admin admin, Set<TopicPartition> partitions, Function<TopicPartition, OffsetSpec> spec) throws Exception {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        partitions.forEach(tp -> request.put(tp, spec.apply(tp)));
        Map<TopicPartition, Long> offsets = new HashMap<>();
        admin.listOffsets(request).all().get(3, TimeUnit.SECONDS).forEach((tp, info) -> offsets.put(tp, info.offset()));
        return offsets;
    }

    private static Map<TopicPartition, Long> byPartition(Map<String, Map<Integer, Long>> byTopic) {
        Map<TopicPartition, Long> flat = new LinkedHashMap<>();
        byTopic.forEach((topic, partitions) ->
                partitions.forEach((p, offset) -> flat.put(new TopicPartition(topic, p), offset)));
        return flat;
    }

    private String routeName(String topic) {
        for (Route route : config.routes) {
            if (route.matches(topic)) {
                return route.target();
            }
        }
        return topic;
    }
}
