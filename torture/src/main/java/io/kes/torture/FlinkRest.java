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

    /**
     * Stops the running job with a savepoint in {@code directory}, without drain, and returns the
     * savepoint's location; fails when it has not completed within {@code timeout} (Flink would
     * wait for its checkpoint timeout): a stop must not hang whatever the writer is doing.
     */
    String stopWithSavepoint(Path directory, Duration timeout) throws IOException, InterruptedException {
        String job = runningJob();
        String trigger = call(
                        "POST",
                        "/jobs/" + job + "/stop",
                        "{\"drain\":false,\"targetDirectory\":\"" + directory.toUri() + "\"}")
                .path("request-id")
                .asText();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode status = call("GET", "/jobs/" + job + "/savepoints/" + trigger, null);
            if ("COMPLETED".equals(status.path("status").path("id").asText())) {
                JsonNode operation = status.path("operation");
                if (operation.has("location")) {
                    return operation.path("location").asText();
                }
                throw new IllegalStateException("the stop with a savepoint failed: " + operation.path("failure-cause"));
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException(
                "the stop with a savepoint did not complete within " + timeout.toSeconds() + " s (job " + job + ")");
    }

    private String runningJob() throws IOException, InterruptedException {
        for (JsonNode job : call("GET", "/jobs", null).path("jobs")) {
            if ("RUNNING".equals(job.path("status").asText())) {
                return job.path("id").asText();
            }
        }
        throw new IllegalStateException("no running job at " + base);
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
