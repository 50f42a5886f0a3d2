package io.kes.jobs.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.jobs.config.KesConfig;
import io.kes.jobs.preflight.KafkaCheck;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.core.execution.JobClient;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@code bin/kes run} prints while the job runs: at start the job, where it starts from,
 * the Flink web UI and the log file; then a line every few seconds with records read, documents
 * indexed, docs/s, lag per route, retries and rejections, dead letters, and the last checkpoint.
 * The counters are {@link ProgressReporter}'s, kept in memory; lag is each partition's end
 * offset minus the next offset the source reads ({@link RouteLag}); checkpoints come from the web
 * UI's REST API.
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
    private final RouteLag lag;
    /** Whether the job started from a checkpoint or savepoint (its Kafka offsets then come from the state). */
    private boolean restored;

    private boolean commitNotePrinted;

    public RunProgress(KesConfig config, JobClient job, String webUi, PrintStream out) {
        this.config = config;
        this.job = job;
        this.webUi = webUi;
        this.out = out;
        this.lag = new RouteLag(config);
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
                lag.of(admin, restored),
                retries,
                rejected,
                config.errors.deadLetters() ? "dead letters" : "failed records",
                deadLetters,
                failureStored == 0 ? "" : String.format(" | in failure stores %,d", failureStored),
                checkpoint());
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
