package io.kes.jobs.template;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kes.connector.IndexNameTemplate;
import io.kes.connector.cluster.RestClients;
import io.kes.jobs.config.ConfigException;
import io.kes.jobs.config.IndexTemplateSettings;
import io.kes.jobs.config.KesConfig;
import io.kes.jobs.config.Route;
import io.kes.jobs.preflight.CannotConnectException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.Response;
import org.elasticsearch.client.ResponseException;
import org.elasticsearch.client.RestClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts a composable index template for every route with {@code index_template:} when the job
 * starts, so indices (and data streams) that kes's writes create get the route's settings. It
 * never changes an existing index: where one differs from the route's settings, it says so.
 */
public final class IndexTemplates {

    private static final Logger LOG = LoggerFactory.getLogger(IndexTemplates.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Above the built-in templates (100-ish for logs-*-*), below what a user sets on purpose. */
    static final int PRIORITY = 200;

    private IndexTemplates() {}

    /**
     * @param restoring the job restores a checkpoint or savepoint: it put its templates when it
     *                  first started, so Elasticsearch out of reach now is a warning (the job
     *                  rides out the outage), not a reason not to start
     */
    public static void apply(KesConfig config, boolean restoring) {
        List<Route> withTemplates =
                config.routes.stream().filter(r -> r.template() != null).toList();
        if (withTemplates.isEmpty()) {
            return;
        }
        try (RestClient client = RestClients.create(config.sink)) {
            for (Route route : withTemplates) {
                put(client, route);
                warnAboutDifferentIndices(client, route);
            }
        } catch (ResponseException e) {
            throw new ConfigException("could not put the index templates of the routes: " + e.getMessage(), e);
        } catch (IOException e) {
            if (restoring) {
                LOG.warn(
                        "Cannot reach Elasticsearch to put the routes' index templates ({}); restored from a checkpoint, the "
                                + "job starts anyway with the templates it put before (changes to index_template apply "
                                + "once a start reaches Elasticsearch)",
                        e.toString());
                return;
            }
            // Not reachable: name the setting (the job has never reached Elasticsearch).
            throw new CannotConnectException(
                    "cannot reach Elasticsearch to put the routes' index templates (" + e
                            + "): check elasticsearch.hosts",
                    e);
        }
    }

    /** {@code logs-{service}-{@timestamp|yyyy.MM.dd}} → {@code logs-*-*}. */
    static String pattern(Route route) {
        return IndexNameTemplate.parse(route.target()).wildcardPattern();
    }

    static String name(Route route) {
        return "kes-" + pattern(route).replace("*", "x");
    }

    static ObjectNode body(Route route) throws IOException {
        IndexTemplateSettings t = route.template();
        ObjectNode body = JSON.createObjectNode();
        body.putArray("index_patterns").add(pattern(route));
        body.put("priority", PRIORITY);
        ObjectNode meta = body.putObject("_meta");
        meta.put("managed_by", "kes");
        ObjectNode settings = body.putObject("template").putObject("settings");
        settings.put("number_of_shards", t.shards());
        settings.put("number_of_replicas", t.replicas());
        settings.put("refresh_interval", t.refreshInterval());
        settings.put("translog.durability", t.translogDurability());
        if (!"default".equals(t.codec())) {
            settings.put("codec", t.codec());
        }
        if (t.mappingsJson() != null) {
            ((ObjectNode) body.get("template")).set("mappings", JSON.readTree(t.mappingsJson()));
        }
        if (t.dataStream()) {
            body.putObject("data_stream");
        }
        return body;
    }

    private static void put(RestClient client, Route route) throws IOException {
        Request request = new Request("PUT", "/_index_template/" + name(route));
        request.setJsonEntity(JSON.writeValueAsString(body(route)));
        try {
            client.performRequest(request);
            LOG.info("Index template {} for {} is in place", name(route), pattern(route));
        } catch (ResponseException e) {
            int status = e.getResponse().getStatusLine().getStatusCode();
            String why = status == 403
                    ? " kes's user or API key lacks the cluster privilege 'manage_index_templates', which putting a "
                            + "route's index_template needs: grant it to the role of elasticsearch.username or elasticsearch.api_key, or "
                            + "remove index_template from the route and put the template yourself."
                    : status == 401
                            ? " The credentials are wrong, expired or revoked: check elasticsearch.username and "
                                    + "elasticsearch.password, or elasticsearch.api_key."
                            : "";
            throw new ConfigException("Elasticsearch refused the index template for route " + route.target() + " ("
                    + pattern(route) + ") with HTTP " + status + "." + why + " " + e.getMessage());
        }
    }

    private static void warnAboutDifferentIndices(RestClient client, Route route) throws IOException {
        Request request = new Request("GET", "/" + pattern(route) + "/_settings");
        request.addParameter(
                "filter_path",
                "*.settings.index.number_of_shards,*.settings.index.number_of_replicas,"
                        + "*.settings.index.refresh_interval,*.settings.index.translog.durability,*.settings.index.codec");
        request.addParameter("expand_wildcards", "open");
        request.addParameter("allow_no_indices", "true");
        JsonNode indices;
        try {
            Response response = client.performRequest(request);
            try (InputStream in = response.getEntity().getContent()) {
                indices = JSON.readTree(in);
            }
        } catch (ResponseException e) {
            return; // nothing there yet
        }
        IndexTemplateSettings t = route.template();
        for (Map.Entry<String, JsonNode> index : indices.properties()) {
            JsonNode s = index.getValue().path("settings").path("index");
            List<String> differences = new ArrayList<>();
            differ(differences, "number_of_shards", s.path("number_of_shards").asText(), Integer.toString(t.shards()));
            differ(
                    differences,
                    "number_of_replicas",
                    s.path("number_of_replicas").asText(),
                    Integer.toString(t.replicas()));
            differ(differences, "refresh_interval", s.path("refresh_interval").asText("1s"), t.refreshInterval());
            differ(
                    differences,
                    "translog.durability",
                    s.path("translog").path("durability").asText("request"),
                    t.translogDurability());
            differ(differences, "codec", s.path("codec").asText("default"), t.codec());
            if (!differences.isEmpty()) {
                LOG.warn(
                        "Existing index {} differs from route {}'s index_template ({}); kes does not change existing indices: "
                                + "the template applies to indices created from now on",
                        index.getKey(),
                        route.target(),
                        String.join(", ", differences));
            }
        }
    }

    private static void differ(List<String> out, String key, String actual, String wanted) {
        if (!actual.equals(wanted)) {
            out.add(key + " is " + actual + ", route wants " + wanted);
        }
    }
}
