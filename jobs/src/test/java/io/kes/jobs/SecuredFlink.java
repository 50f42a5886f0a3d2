package io.kes.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.jobs.config.KesConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * A MiniCluster with its REST endpoint (what the Flink web UI reads), to which jobs are submitted
 * as to a cluster, restarting as {@code checkpoints-config/local.yaml} says (exponential delay, no
 * limit): an error that is retried shows as a second entry in the job's exception history.
 */
final class SecuredFlink implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private final MiniCluster cluster;
    private final URI rest;

    SecuredFlink() throws Exception {
        Configuration conf = new Configuration();
        conf.set(RestOptions.BIND_PORT, "0");
        conf.set(RestOptions.ADDRESS, "127.0.0.1");
        cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(2)
                .build());
        cluster.start();
        rest = cluster.getRestAddress().get();
    }

    /** Submits the kes job for {@code config} and returns at once. */
    JobClient submit(KesConfig config, String name) throws Exception {
        Configuration conf = new Configuration();
        conf.set(DeploymentOptions.TARGET, "remote");
        conf.set(RestOptions.ADDRESS, rest.getHost());
        conf.set(RestOptions.PORT, rest.getPort());
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "exponential-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF, Duration.ofSeconds(1));
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF, Duration.ofSeconds(2));
        conf.set(
                org.apache.flink.configuration.ConfigOptions.key(
                                "restart-strategy.exponential-delay.attempts-before-reset-backoff")
                        .intType()
                        .noDefaultValue(),
                1_000_000);
        // Not getExecutionEnvironment: outside a cluster's client it makes a local environment, ignoring the target.
        StreamExecutionEnvironment env = new StreamExecutionEnvironment(conf);
        KesJob.build(env, config);
        return env.executeAsync(name);
    }

    /** GET on Flink's REST API, as the web UI calls it. */
    JsonNode get(String path) throws IOException, InterruptedException {
        HttpResponse<String> r =
                HTTP.send(HttpRequest.newBuilder(rest.resolve(path)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("GET " + path + ": HTTP " + r.statusCode() + " " + r.body());
        }
        return JSON.readTree(r.body());
    }

    /** Everything the REST API shows about a job: overview, configuration, plan, exceptions, checkpoints, vertex metrics. */
    String everythingShownAbout(JobID job) throws Exception {
        List<String> bodies = new ArrayList<>();
        String base = "/jobs/" + job;
        JsonNode overview = get(base);
        bodies.add(overview.toString());
        for (String sub : List.of(
                "/config", "/jobmanager/config", "/plan", "/exceptions", "/checkpoints", "/checkpoints/config")) {
            bodies.add(get(base + sub).toString());
        }
        for (JsonNode vertex : overview.path("vertices")) {
            String metrics = get(base + "/vertices/" + vertex.path("id").asText() + "/metrics")
                    .toString();
            bodies.add(metrics);
        }
        return String.join("\n", bodies);
    }

    /** How many failures the job went through (each restart adds one). */
    int failures(JobID job) throws Exception {
        return get("/jobs/" + job + "/exceptions")
                .path("exceptionHistory")
                .path("entries")
                .size();
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }
}
