package io.kes.torture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;

/**
 * What a user does to the job through Flink's REST API (the job's embedded cluster listens on
 * {@code rest.port}): {@code flink stop}, a savepoint without drain, as before an upgrade.
 */
final class FlinkRest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    FlinkRest(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    /** A stop with a savepoint Flink took: its job and its request, whose status {@link #status} reads. */
    record Stop(String job, String request) {}

    /**
     * Asks the running job to stop with a savepoint in {@code directory}, without drain, once every
     * task of it runs (a stop while tasks still deploy fails at once: "not all required tasks are
     * currently running"). Returns once Flink took the request: the job's process exits when the
     * savepoint completes, and with it this REST endpoint, so the savepoint's completion is read from
     * the process and the directory ({@link JobProcess#stopWithSavepointAndResume}); {@link #status}
     * says why while the process still runs.
     */
    Stop triggerStopWithSavepoint(Path directory) throws IOException, InterruptedException {
        String job = awaitRunningJob(Duration.ofSeconds(90));
        JsonNode answer = call(
                "POST",
                "/jobs/" + job + "/stop",
                "{\"drain\":false,\"targetDirectory\":\"" + directory.toUri() + "\"}");
        return new Stop(job, answer.path("request-id").asText());
    }

    /** {@code IN_PROGRESS}, {@code COMPLETED}, or {@code FAILED: <cause>} of a stop Flink took. */
    String status(Stop stop) throws IOException, InterruptedException {
        JsonNode answer = call("GET", "/jobs/" + stop.job() + "/savepoints/" + stop.request(), null);
        String status = answer.path("status").path("id").asText();
        JsonNode failure = answer.path("operation").path("failure-cause");
        return failure.isMissingNode() || failure.isNull()
                ? status
                : "FAILED: "
                        + failure.path("stack-trace")
                                .asText()
                                .lines()
                                .findFirst()
                                .orElse("?");
    }

    /** The running job's latest completed checkpoint: its end-to-end duration in ms and its size in bytes; empty before the first. */
    java.util.Optional<long[]> latestCheckpoint() throws IOException, InterruptedException {
        JsonNode completed = call("GET", "/jobs/" + runningJob() + "/checkpoints", null)
                .path("latest")
                .path("completed");
        if (completed.isMissingNode() || completed.isNull()) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(new long[] {
            completed.path("end_to_end_duration").asLong(),
            completed.path("state_size").asLong()
        });
    }

    /**
     * The running job's id, waiting up to {@code timeout} for one: a job started moments ago (from
     * the savepoint of the stop before, say) has no REST endpoint yet, or no running job behind it.
     */
    private String awaitRunningJob(Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                return fullyRunningJob();
            } catch (IOException | IllegalStateException notYet) {
                if (System.nanoTime() > deadline) {
                    throw notYet;
                }
                Thread.sleep(250);
            }
        }
    }

    private String runningJob() throws IOException, InterruptedException {
        for (JsonNode job : call("GET", "/jobs", null).path("jobs")) {
            if ("RUNNING".equals(job.path("status").asText())) {
                return job.path("id").asText();
            }
        }
        throw new IllegalStateException("no running job at " + base);
    }

    /** The running job whose every task runs. */
    private String fullyRunningJob() throws IOException, InterruptedException {
        String job = runningJob();
        for (JsonNode vertex : call("GET", "/jobs/" + job, null).path("vertices")) {
            if (!"RUNNING".equals(vertex.path("status").asText())) {
                throw new IllegalStateException("job " + job + " has tasks not running yet");
            }
        }
        return job;
    }

    private JsonNode call(String method, String path, String body) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(10))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IOException(method + " " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body());
    }
}
