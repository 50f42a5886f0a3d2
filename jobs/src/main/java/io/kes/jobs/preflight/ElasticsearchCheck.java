package io.kes.jobs.preflight;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.connector.Durability;
import io.kes.connector.ElasticsearchSinkOptions;
import io.kes.connector.SinkSettings;
import io.kes.connector.cluster.AwsSigV4;
import io.kes.connector.cluster.PrivilegeCheck;
import io.kes.connector.cluster.RestClients;
import io.kes.jobs.config.KesConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import org.apache.flink.configuration.Configuration;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.ResponseException;
import org.elasticsearch.client.RestClient;

/**
 * Each {@code elasticsearch.hosts} entry: reachable, which distribution and version, credentials
 * accepted; then, on the first host that answered, the privileges kes needs (the writer's own
 * {@link PrivilegeCheck}). Failures name the setting to change.
 */
final class ElasticsearchCheck {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** To the log file only (log4j2-cli.properties): the console gets the table. */
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ElasticsearchCheck.class);

    private final KesConfig config;
    private final SinkSettings settings;

    ElasticsearchCheck(KesConfig config) {
        this.config = config;
        this.settings = config.sink;
    }

    /**
     * Checks every host; returns the first that answered with kes's credentials accepted.
     * {@code outageTolerated}: a job restored from a checkpoint has reached Elasticsearch before
     * and rides out an outage, so no answer is a warning then, not a failure.
     */
    Optional<URI> hosts(PreflightReport report, boolean outageTolerated) {
        URI usable = null;
        List<URI> hosts = settings.hosts();
        int unreachable = 0;
        for (int i = 0; i < hosts.size(); i++) {
            URI host = hosts.get(i);
            String subject = "elasticsearch " + host;
            try (RestClient client = clientFor(host)) {
                JsonNode root = info(client);
                JsonNode version = root.path("version");
                String distribution =
                        "opensearch".equals(version.path("distribution").asText()) ? "OpenSearch" : "Elasticsearch";
                String flavor = version.path("build_flavor").asText("");
                report.ok(
                        subject,
                        distribution + " " + version.path("number").asText("?")
                                + (flavor.isEmpty() ? "" : " (" + flavor + ")") + ", cluster "
                                + root.path("cluster_name").asText("?")
                                + ", " + authDescription());
                if (usable == null) {
                    usable = host;
                }
            } catch (ResponseException e) {
                LOG.info("check of {} failed", host, e);
                int status = e.getResponse().getStatusLine().getStatusCode();
                AwsSigV4 aws = settings.awsSigV4();
                if (aws != null && (status == 401 || status == 403)) {
                    report.fail(subject, aws.refused(status, PrivilegeCheck.answer(e)));
                } else if (aws != null && aws.serverless()) {
                    // a collection answers only its own APIs; past the signature check, anything else means it passed
                    report.ok(
                            subject,
                            "OpenSearch Serverless collection (HTTP " + status + " to GET /), " + authDescription());
                    usable = usable == null ? host : usable;
                } else if (status == 401) {
                    report.fail(subject, PrivilegeCheck.refusedCredentials(settings));
                } else if (status == 403) {
                    report.fail(
                            subject,
                            "Elasticsearch refused kes's credentials (HTTP " + status + "): check "
                                    + (settings.hasApiKey()
                                            ? "elasticsearch.api_key"
                                            : settings.username() != null
                                                    ? "elasticsearch.username and elasticsearch.password"
                                                    : "elasticsearch.username/password or elasticsearch.api_key "
                                                            + "(none is set and this cluster requires one)"));
                } else {
                    report.fail(
                            subject,
                            "answered HTTP " + status + " to GET /: is this Elasticsearch? check elasticsearch.hosts["
                                    + i + "]"
                                    + (settings.pathPrefix() != null ? " and elasticsearch.path_prefix" : ""));
                }
            } catch (IOException e) {
                LOG.info("check of {} failed", host, e);
                unreachable++;
                String why = "cannot connect (" + describe(e) + "): check elasticsearch.hosts[" + i
                        + "] (scheme, host and port of an " + "Elasticsearch node, e.g. http://localhost:9200)";
                if (outageTolerated) {
                    report.warn(subject, why + "; restored from a checkpoint, the job waits for Elasticsearch");
                } else if (hosts.size() > 1) {
                    report.warn(subject, why);
                } else {
                    report.fail(subject, why);
                }
            }
        }
        if (usable == null && unreachable == hosts.size() && hosts.size() > 1 && !outageTolerated) {
            report.fail("elasticsearch", "none of elasticsearch.hosts answered: check elasticsearch.hosts");
        }
        if (usable != null) {
            privileges(report, usable);
        }
        if (settings.awsSigV4() != null) {
            String what = settings.awsSigV4().whatKesDoes();
            if (settings.awsSigV4().serverless()) {
                report.warn("aws sigv4", what);
            } else {
                report.ok("aws sigv4", what);
            }
        }
        return Optional.ofNullable(usable);
    }

    private void privileges(PreflightReport report, URI host) {
        try (RestClient client = clientFor(host)) {
            PrivilegeCheck.Result result = PrivilegeCheck.probe(client, settings);
            switch (result.outcome()) {
                case GRANTED ->
                    report.ok(
                            "elasticsearch privileges",
                            "cluster privilege monitor held (index privileges are checked on write)");
                case NO_SECURITY ->
                    report.ok("elasticsearch privileges", result.message()); // security off, or OpenSearch
                case UNAUTHORIZED, TLS_REFUSED -> report.fail("elasticsearch privileges", result.message());
                case MISSING_MONITOR -> {
                    if (settings.durability() == Durability.CHECKPOINT_FENCE) {
                        report.fail(
                                "elasticsearch privileges", PrivilegeCheck.missingMonitorFix(settings.durability()));
                    } else {
                        report.warn(
                                "elasticsearch privileges", PrivilegeCheck.missingMonitorFix(settings.durability()));
                    }
                }
                case UNREACHABLE -> report.warn("elasticsearch privileges", "could not ask: " + result.message());
            }
        } catch (IOException e) {
            report.warn("elasticsearch privileges", "could not ask: " + describe(e));
        }
    }

    private String authDescription() {
        if (settings.awsSigV4() != null) {
            return "AWS SigV4 signature accepted (" + settings.awsSigV4().service() + ", "
                    + settings.awsSigV4().region() + ")";
        }
        return settings.hasApiKey()
                ? "API key accepted"
                : settings.username() != null ? "user " + settings.username() + " accepted" : "no credentials";
    }

    /** A client for one host, with kes's auth, TLS and path prefix. */
    RestClient clientFor(URI host) {
        Configuration one = new Configuration(config.sinkOptions);
        one.set(ElasticsearchSinkOptions.HOSTS, List.of(host.toString()));
        return RestClients.create(SinkSettings.from(one));
    }

    SinkSettings settings() {
        return settings;
    }

    /**
     * {@code GET /}: version, flavor, distribution, cluster name. Distributions without that
     * endpoint (the integ-test-zip answers 405) are asked through {@code _nodes/_local} instead.
     */
    static JsonNode info(RestClient client) throws IOException {
        try {
            return get(client, "/");
        } catch (ResponseException e) {
            if (e.getResponse().getStatusLine().getStatusCode() != 405) {
                throw e;
            }
            JsonNode nodes =
                    get(client, "/_nodes/_local?filter_path=cluster_name,nodes.*.version,nodes.*.build_flavor");
            JsonNode node = nodes.path("nodes").elements().hasNext()
                    ? nodes.path("nodes").elements().next()
                    : JSON.createObjectNode();
            com.fasterxml.jackson.databind.node.ObjectNode root = JSON.createObjectNode();
            root.put("cluster_name", nodes.path("cluster_name").asText("?"));
            root.putObject("version")
                    .put("number", node.path("version").asText("?"))
                    .put("build_flavor", node.path("build_flavor").asText(""));
            return root;
        }
    }

    /**
     * How many data nodes the cluster has ({@code _cluster/health}, which the {@code monitor}
     * privilege kes needs allows), or {@link MemoryCheck#NODES_UNKNOWN} when it does not say.
     */
    int dataNodes(RestClient client) {
        try {
            JsonNode health = get(client, "/_cluster/health?filter_path=number_of_data_nodes");
            return health.path("number_of_data_nodes").asInt(MemoryCheck.NODES_UNKNOWN);
        } catch (IOException | RuntimeException e) {
            LOG.info("could not read the number of data nodes: {}", describe(e));
            return MemoryCheck.NODES_UNKNOWN;
        }
    }

    static JsonNode get(RestClient client, String path) throws IOException {
        try (InputStream in =
                client.performRequest(new Request("GET", path)).getEntity().getContent()) {
            return JSON.readTree(in);
        }
    }

    static String describe(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return root.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
