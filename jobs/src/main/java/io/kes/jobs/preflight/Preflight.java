package io.kes.jobs.preflight;

import io.kes.jobs.config.KesConfig;
import java.net.URI;
import java.util.Optional;
import org.elasticsearch.client.RestClient;

/**
 * {@code bin/kes check}, and the brief check at the start of {@code bin/kes run}: connects to
 * Elasticsearch and Kafka as the job would, and reports per route what the job will find, before
 * a job starts and retries against a wrong address for minutes.
 */
public final class Preflight {

    private Preflight() {}

    /**
     * Runs every check. {@code restoring}: the job resumes a checkpoint, so it reached
     * Elasticsearch and Kafka before and rides out an outage as usual; no answer from either is
     * then a warning instead of a failure.
     */
    public static PreflightReport run(KesConfig config, boolean restoring) {
        PreflightReport report = new PreflightReport();
        report.ok(
                "config",
                config.routes.size() + " route(s), job " + config.job.name()
                        + (config.job.parallelism() > 0 ? ", parallelism " + config.job.parallelism() : ""));
        ElasticsearchCheck elasticsearch = new ElasticsearchCheck(config);
        Optional<URI> host = elasticsearch.hosts(report, restoring);
        int dataNodes = MemoryCheck.NODES_UNKNOWN;
        if (host.isPresent()) {
            try (RestClient client = elasticsearch.clientFor(host.get())) {
                dataNodes = elasticsearch.dataNodes(client);
            } catch (java.io.IOException e) {
                report.warn("memory", "could not close the Elasticsearch client: " + e);
            }
        }
        MemoryCheck.check(report, config, Runtime.getRuntime().maxMemory(), dataNodes);
        new KafkaCheck(config).check(report, restoring);
        if (host.isPresent()) {
            try (RestClient client = elasticsearch.clientFor(host.get())) {
                RouteTargetCheck targets = new RouteTargetCheck(client, elasticsearch.settings());
                for (int i = 0; i < config.routes.size(); i++) {
                    targets.check(report, "routes[" + i + "]", config.routes.get(i));
                }
            } catch (java.io.IOException e) {
                report.warn("routes", "could not close the Elasticsearch client: " + e);
            }
        }
        return report;
    }

    /** Throws {@link PreflightFailed} naming the first failure (and how many more) when the report has any. */
    public static void requireOk(PreflightReport report) {
        if (report.failed()) {
            throw new PreflightFailed(report);
        }
    }
}
