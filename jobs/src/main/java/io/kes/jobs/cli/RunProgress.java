package io.kes.jobs.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.jobs.config.KafkaSettings;
import io.kes.jobs.config.KesConfig;
import io.kes.jobs.config.Route;
import io.kes.jobs.preflight.KafkaCheck;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.core.execution.JobClient;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@code bin/kes run} prints while the job runs: at start the job, where it starts from,
 * the Flink web UI and the log file; then a line every few seconds with records read, documents
 * indexed, docs/s, lag per route, retries and rejections, dead letters, and the last checkpoint.
 * The counters are {@link ProgressReporter}'s, kept in memory; lag is each partition's end
 * offset (asked from Kafka) minus the next offset the source reads: after its position, or, in a
 * partition it has not read from yet, where it resumes ({@link #resumeAt}); checkpoints come from
 * the web UI's REST API.
 */
public final class RunProgress {

    static final Duration INTERVAL = Duration.ofSeconds(5);

    /** How often a bounded job's checkpoints are looked at for a declined last one. */
    public static final Duration BOUNDED_POLL = Duration.ofMillis(250);

    private static final Logger LOG = LoggerFactory.getLogger(RunProgress.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final int REST_TIMEOUT_MILLIS = 2_000;

    private final KesConfig config;
    private final JobClient job;
    private final String webUi;
    private final PrintStream out;
    private final long started = System.nanoTime();
    private final ProgressReporter.Rate docsPerSecond = new ProgressReporter.Rate(started);
    private final ClosingTaskDeclines declines = new ClosingTaskDeclines();
    /** Whether the job started from a checkpoint or savepoint (its Kafka offsets then come from the state). */
    private boolean restored;

    private boolean commitNotePrinted;

    public RunProgress(KesConfig config, JobClient job, String webUi, PrintStream out) {
        this.config = config;
        this.job = job;
        this.webUi = webUi;
        this.out = out;
    }

    /** The start banner. {@code restoredFrom}: the checkpoint or savepoint, or null for a fresh start. */
    public void banner(String restoredFrom, String logFile) {
        out.println("[kes] job " + config.job.name() + " started, id " + job.getJobID());
        restored = restoredFrom != null;
        if (restoredFrom != null) {
            out.println("[kes]   restored from " + restoredFrom + " (Kafka offsets from its state)");
        } else {
            String start = config.kafka.startingOffsets().name().toLowerCase();
            out.println("[kes]   no checkpoint: starts at kafka.starting_offsets " + start
                    + (start.equals("committed")
                            ? " (group " + config.kafka.groupId() + "'s offsets; earliest where it has none)"
                            : ""));
        }
        out.println("[kes]   Flink web UI: " + webUi);
        if (logFile != null) {
            out.println("[kes]   log: " + logFile);
        }
    }

    /**
     * Prints progress until the job ends; returns its result or throws its failure. A bounded job's
     * checkpoints are looked at every {@link #BOUNDED_POLL}, so that one a closing task declined is
     * asked for again at once ({@link ClosingTaskDeclines}).
     */
    public JobExecutionResult untilDone(boolean quiet) throws Exception {
        CompletableFuture<JobExecutionResult> result = job.getJobExecutionResult();
        long step = config.job.bounded() ? BOUNDED_POLL.toNanos() : INTERVAL.toNanos();
        long nextLine = System.nanoTime() + INTERVAL.toNanos();
        try (Admin admin = quiet ? null : Admin.create(KafkaCheck.adminProperties(config.kafka))) {
            while (true) {
                try {
                    JobExecutionResult done = result.get(step, TimeUnit.NANOSECONDS);
                    if (!quiet) {
                        out.println(line(admin) + " | finished");
                    }
                    return done;
                } catch (TimeoutException stillRunning) {
                    if (config.job.bounded()) {
                        answerClosingDecline();
                    }
                    if (System.nanoTime() - nextLine >= 0) {
                        nextLine += INTERVAL.toNanos();
                        if (!quiet) {
                            out.println(line(admin));
                            if (ProgressReporter.offsetCommitNoteDue(commitNotePrinted)) {
                                out.println(ProgressReporter.OFFSET_COMMIT_NOTE);
                                commitNotePrinted = true;
                            }
                        }
                    }
                }
            }
        }
    }

    /** Asks for a checkpoint again when a closing task declined the last one; reads the web UI only after a failure. */
    private void answerClosingDecline() {
        if (declines.worthReading(
                checkpointGauge(ProgressReporter.FAILED_CHECKPOINTS),
                checkpointGauge(ProgressReporter.IN_PROGRESS_CHECKPOINTS))) {
            declines.askAgain(checkpoints()).ifPresent(this::askForCheckpoint);
        }
    }

    /** This job's checkpoint gauge {@code name}, -1 before Flink registered it. */
    private long checkpointGauge(String name) {
        return ProgressReporter.checkpointGauge(name, job.getJobID().toString());
    }

    /** One progress line. */
    String line(Admin admin) {
        long read = ProgressReporter.sum("numRecordsOut", "Source");
        long indexed = ProgressReporter.sum("numRecordsSend", "bulk writer");
        long now = System.nanoTime();
        double rate = docsPerSecond.perSecond(indexed, now);
        long retries = ProgressReporter.sum("itemRetriesUnavailable", "bulk writer")
                + ProgressReporter.sum("requestRetries", "bulk writer");
        long rejected = ProgressReporter.sum("itemRetriesRejected", "bulk writer");
        long deadLetters = ProgressReporter.sum("permanentFailures", "bulk writer")
                + ProgressReporter.sum("decodeFailures", "decode");
        long failureStored = ProgressReporter.sum("failureStoreRedirects", "bulk writer");
        return String.format(
                "[kes] %5.0fs read %,d | indexed %,d | %,.0f docs/s | lag %s | retries %,d, rejected (429) %,d | %s %,d%s | %s",
                (now - started) / 1e9,
                read,
                indexed,
                rate,
                lag(admin),
                retries,
                rejected,
                config.errors.deadLetters() ? "dead letters" : "failed records",
                deadLetters,
                failureStored == 0 ? "" : String.format(" | in failure stores %,d", failureStored),
                checkpoint());
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
    private String lag(Admin admin) {
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
            Map<TopicPartition, OptionalLong> resume = unread.isEmpty() ? Map.of() : resumeAt(admin, unread, ends);
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
            Admin admin, Set<TopicPartition> unread, Map<TopicPartition, Long> ends) throws Exception {
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

    /** The last completed checkpoint: id, duration, and the writer's latest fence wait. */
    private String checkpoint() {
        long completed = checkpointGauge(ProgressReporter.LAST_COMPLETED_CHECKPOINT);
        if (completed < 0) {
            return "no checkpoint yet";
        }
        long fence = ProgressReporter.latest("fenceMs");
        return String.format(
                "checkpoint %d (%,d ms%s)",
                completed,
                checkpointGauge(ProgressReporter.LAST_CHECKPOINT_DURATION),
                fence >= 0 ? String.format(", fence wait %,d ms", fence) : "");
    }

    /**
     * The web UI's checkpoint statistics, or null when it does not answer (the job has ended, the
     * REST endpoint with it, or is busy): read only after a failed checkpoint, for its message.
     * Read with a plain {@link HttpURLConnection}: the JDK's {@code HttpClient} leaves a thread in
     * native code that holds the JVM's exit back by up to 300 ms.
     */
    private JsonNode checkpoints() {
        try (InputStream in = rest("GET", null).getInputStream()) {
            return JSON.readTree(in);
        } catch (Exception e) {
            return null;
        }
    }

    /** Asks Flink for a checkpoint now (not a periodic one: the minimum pause does not hold it back). */
    private void askForCheckpoint(long declined) {
        try {
            HttpURLConnection post = rest("POST", "{}");
            try (InputStream in = post.getInputStream()) {
                in.readAllBytes();
            }
            LOG.info(
                    "A closing task declined the checkpoint {}; asked for another at once instead of after the minimum pause",
                    declined);
        } catch (Exception e) {
            LOG.debug("Could not ask for a checkpoint again; Flink's own schedule will take one", e);
        }
    }

    private HttpURLConnection rest(String method, String body) throws IOException {
        HttpURLConnection rest = (HttpURLConnection) URI.create(webUi + "jobs/" + job.getJobID() + "/checkpoints")
                .toURL()
                .openConnection();
        rest.setConnectTimeout(REST_TIMEOUT_MILLIS);
        rest.setReadTimeout(REST_TIMEOUT_MILLIS);
        rest.setRequestMethod(method);
        if (body != null) {
            rest.setDoOutput(true);
            rest.setRequestProperty("Content-Type", "application/json");
            try (OutputStream out = rest.getOutputStream()) {
                out.write(body.getBytes(StandardCharsets.UTF_8));
            }
        }
        return rest;
    }
}
