package io.kes.jobs.preflight;

import com.fasterxml.jackson.databind.JsonNode;
import io.kes.connector.Durability;
import io.kes.connector.SinkSettings;
import io.kes.connector.cluster.ClusterMetadataClient;
import io.kes.connector.cluster.IndexMetadata;
import io.kes.connector.routing.IndexLayout;
import io.kes.connector.routing.IndexRoutingTable;
import io.kes.jobs.config.Route;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.ResponseException;
import org.elasticsearch.client.RestClient;

/**
 * Per route, the Elasticsearch side: the target index, alias, data stream or name template; its
 * shard count; whether kes's shard prediction calibrated against it (through the writer's own
 * {@link IndexRoutingTable}, or why not); and the durability mode with the index's translog
 * setting, since the fence is what makes {@code async} safe.
 */
final class RouteTargetCheck {

    private final RestClient client;
    private final SinkSettings settings;

    RouteTargetCheck(RestClient client, SinkSettings settings) {
        this.client = client;
        this.settings = settings;
    }

    void check(PreflightReport report, String path, Route route) {
        target(report, path, route);
        if (route.pipeline() != null) {
            pipeline(report, path, route.pipeline());
        }
    }

    /**
     * The route's ingest pipeline exists. A missing one would otherwise show only once the job
     * runs, as retries of every document until {@code retry.max_time} (a node that just restarted
     * answers "does not exist" for a moment, so the writer cannot fail at once). Unreadable without
     * the cluster privilege {@code read_pipeline}, which kes does not need: then not checked.
     */
    private void pipeline(PreflightReport report, String path, String pipeline) {
        String subject = path + " pipeline";
        try {
            client.performRequest(new Request("GET", "/_ingest/pipeline/" + encode(pipeline)));
            report.ok(subject, "ingest pipeline " + pipeline + " exists");
        } catch (ResponseException e) {
            int status = e.getResponse().getStatusLine().getStatusCode();
            if (status == 404) {
                report.fail(
                        subject,
                        "ingest pipeline '" + pipeline + "' does not exist: create it (PUT _ingest/pipeline/" + pipeline
                                + ") before starting the job, or fix " + path + ".pipeline");
            } else if (status == 401 || status == 403) {
                report.ok(subject, "ingest pipeline " + pipeline + " not readable without read_pipeline; not checked");
            } else {
                report.warn(subject, "could not read ingest pipeline " + pipeline + ": HTTP " + status);
            }
        } catch (IOException e) {
            report.warn(subject, "could not read ingest pipeline " + pipeline + ": " + ElasticsearchCheck.describe(e));
        }
    }

    private void target(PreflightReport report, String path, Route route) {
        String subject = path + " target";
        String target = route.target();
        String kind = route.dataStream() != null ? "data stream" : "index";
        String durability = "durability " + settings.durability().value();
        if (settings.awsSigV4() != null && settings.awsSigV4().serverless()) {
            report.ok(
                    subject,
                    kind + " " + target + " in an OpenSearch Serverless collection: no shards to read, "
                            + "its documents go in ordinary bulks; " + durability);
            return;
        }
        if (target.contains("{")) {
            String template = route.template() != null
                    ? "index_template puts " + route.template().shards() + " shards, translog "
                            + route.template().translogDurability()
                    : "the cluster's templates decide shards";
            report.ok(
                    subject,
                    kind + " name template " + target + ": one index per value, created on first write (" + template
                            + "); each calibrated when first written; " + durability);
            return;
        }
        try {
            IndexRoutingTable table =
                    new IndexRoutingTable(new ClusterMetadataClient(client), System::currentTimeMillis);
            Optional<IndexLayout> layout = table.layoutFor(target);
            if (layout.isEmpty()) {
                String shards = route.template() != null
                        ? route.template().shards() + " shards from the route's index_template"
                        : simulatedShards(target)
                                .map(n -> n + " shard(s) by the cluster's templates")
                                .orElse("shards by the cluster's defaults");
                report.ok(
                        subject,
                        kind + " " + target + " does not exist yet: created on first write with " + shards
                                + "; calibrated then; " + durability);
                return;
            }
            IndexLayout index = layout.get();
            String name = index.index().equals(target)
                    ? kind + " " + target
                    : kind + " " + target + " (writes go to " + index.index() + ")";
            String translog = translogDurability(index.index());
            String prediction = index.routing() != null
                    ? "shard prediction calibrated ("
                            + index.routing().function().name().toLowerCase() + ")"
                    : "shard prediction off: " + whyNot(index.index()) + "; its documents go in ordinary bulks";
            String line = name + ": " + index.numberOfShards() + " shard(s), " + prediction + "; " + durability
                    + " (translog " + translog + ")";
            if (settings.durability() == Durability.REQUEST && "async".equals(translog)) {
                report.warn(
                        subject,
                        line + ": with elasticsearch.durability: request and an async translog, a crash can lose "
                                + "acknowledged writes; use durability checkpoint-fence or index.translog.durability: request");
            } else {
                report.ok(subject, line);
            }
        } catch (IOException | RuntimeException e) {
            report.warn(subject, "could not read " + target + ": " + ElasticsearchCheck.describe(e));
        }
    }

    private String whyNot(String concrete) throws IOException {
        IndexMetadata metadata =
                new ClusterMetadataClient(client).indices(List.of(concrete)).get(concrete);
        if (metadata != null && !metadata.routedByDocument()) {
            return "it routes on document fields (time_series, routing_path or logsdb sort-field routing)";
        }
        return "no known routing function matches where Elasticsearch puts probe values (see the log)";
    }

    private String translogDurability(String concrete) {
        try {
            Request request = new Request("GET", "/" + encode(concrete) + "/_settings/index.translog.durability");
            request.addParameter("include_defaults", "true");
            JsonNode root = read(request).path(concrete);
            JsonNode set = root.path("settings").path("index").path("translog").path("durability");
            return set.isTextual()
                    ? set.asText()
                    : root.path("defaults")
                            .path("index")
                            .path("translog")
                            .path("durability")
                            .asText("request");
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** The shard count a new index of this name would get from the cluster's templates (Elasticsearch 7.9+). */
    private Optional<Integer> simulatedShards(String name) {
        try {
            JsonNode root = read(new Request("POST", "/_index_template/_simulate_index/" + encode(name)));
            JsonNode shards =
                    root.path("template").path("settings").path("index").path("number_of_shards");
            return shards.isMissingNode() ? Optional.of(1) : Optional.of(shards.asInt());
        } catch (ResponseException e) {
            return Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private JsonNode read(Request request) throws IOException {
        try (InputStream in = client.performRequest(request).getEntity().getContent()) {
            return new com.fasterxml.jackson.databind.ObjectMapper().readTree(in);
        }
    }

    private static String encode(String name) {
        return URLEncoder.encode(name, StandardCharsets.UTF_8);
    }
}
