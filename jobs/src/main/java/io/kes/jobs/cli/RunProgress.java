package io.kes.jobs.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.jobs.check.KafkaCheck;
import io.kes.jobs.config.KesConfig;
import io.kes.jobs.config.Route;
import io.kes.jobs.quickstart.ProgressReporter;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.core.execution.JobClient;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * What {@code bin/kes run} prints while the job runs: at start the job, where it starts from,
 * the Flink web UI and the log file; then a line every few seconds with records read, documents
 * indexed, docs/s, lag per route, retries and rejections, dead letters, and the last checkpoint.
 * The counters are the quick start's ({@link ProgressReporter}); lag is each partition's end
 * offset (asked from Kafka) minus the source's position; checkpoints come from the web UI's REST API.
 */
public final class RunProgress {

    static final Duration INTERVAL = Duration.ofSeconds(5);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final KesConfig config;
    private final JobClient job;
    private final String webUi;
    private final PrintStream out;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final long started = System.nanoTime();
    private final ProgressReporter.Rate docsPerSecond = new ProgressReporter.Rate(started);
    private String lastCheckpoint = "no checkpoint yet";

    public RunProgress(KesConfig config, JobClient job, String webUi, PrintStream out) {
        this.config = config;
        this.job = job;
        this.webUi = webUi;
        this.out = out;
    }

    /** The start banner. {@code restoredFrom}: the checkpoint or savepoint, or null for a fresh start. */
    public void banner(String restoredFrom, String logFile) {
        out.println("[kes] job " + config.job.name() + " started, id " + job.getJobID());
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

    /** Prints progress until the job ends; returns its result or throws its failure. */
    public JobExecutionResult untilDone(boolean quiet) throws Exception {
        CompletableFuture<JobExecutionResult> result = job.getJobExecutionResult();
        try (Admin admin = quiet ? null : Admin.create(KafkaCheck.adminProperties(config.kafka))) {
            while (true) {
                try {
                    JobExecutionResult done = result.get(INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
                    if (!quiet) {
                        out.println(line(admin) + " | finished");
                    }
                    return done;
                } catch (TimeoutException stillRunning) {
                    if (!quiet) {
                        out.println(line(admin));
                    }
                }
            }
        }
    }

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

    /** Per route (named by its target): end offsets minus the source's position, summed over the route's partitions. */
    private String lag(Admin admin) {
        Map<String, Map<Integer, Long>> positions = ProgressReporter.kafkaOffsets();
        if (positions.isEmpty()) {
            return "-";
        }
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        positions.forEach((topic, partitions) ->
                partitions.keySet().forEach(p -> request.put(new TopicPartition(topic, p), OffsetSpec.latest())));
        Map<String, Long> byRoute = new LinkedHashMap<>();
        try {
            var ends = admin.listOffsets(request).all().get(3, TimeUnit.SECONDS);
            ends.forEach((tp, end) -> {
                long position = positions.get(tp.topic()).get(tp.partition());
                // currentOffset is the last record emitted; -1 before the first one
                long lag = Math.max(0, end.offset() - (position < 0 ? 0 : position + 1));
                byRoute.merge(routeName(tp.topic()), lag, Long::sum);
            });
        } catch (Exception e) {
            return "? (" + e.getClass().getSimpleName() + ")";
        }
        List<String> parts = new ArrayList<>();
        byRoute.forEach((route, lag) ->
                parts.add(byRoute.size() == 1 ? String.format("%,d", lag) : String.format("%s %,d", route, lag)));
        return String.join(", ", parts);
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
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create(webUi + "jobs/" + job.getJobID() + "/checkpoints"))
                    .timeout(Duration.ofSeconds(2))
                    .build();
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            JsonNode completed = JSON.readTree(response.body()).path("latest").path("completed");
            if (completed.isMissingNode() || completed.isNull()) {
                return lastCheckpoint;
            }
            long fence = ProgressReporter.latest("fenceMs");
            lastCheckpoint = String.format(
                    "checkpoint %d (%,d ms%s)",
                    completed.path("id").asLong(),
                    completed.path("end_to_end_duration").asLong(),
                    fence >= 0 ? String.format(", fence wait %,d ms", fence) : "");
        } catch (Exception e) {
            // the job has ended (the REST endpoint with it) or is busy: the last answer stands
        }
        return lastCheckpoint;
    }
}
