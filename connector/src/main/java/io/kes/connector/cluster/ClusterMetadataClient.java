package io.kes.connector.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.annotation.Internal;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.RestClient;

/**
 * Reads what kes needs to know of an index from Elasticsearch: its metadata (shards, routing,
 * primary terms), the write index of aliases and data streams, its ingest pipelines, and the shard
 * placement of probe routing values. Blocking calls: they run when an index is first seen or its
 * cached metadata expires, never per document. The fence's reads are {@link PrimaryShardState}'s,
 * the nodes' addresses and primaries {@link NodePlacement}'s.
 */
@Internal
public final class ClusterMetadataClient {

    private static final String FILTER = String.join(
            ",",
            "metadata.indices.*.routing_num_shards",
            "metadata.indices.*.primary_terms",
            "metadata.indices.*.settings.index.number_of_shards",
            "metadata.indices.*.settings.index.uuid",
            "metadata.indices.*.settings.index.routing_partition_size",
            "metadata.indices.*.settings.index.mode",
            "metadata.indices.*.settings.index.routing_path",
            "metadata.indices.*.settings.index.logsdb.route_on_sort_fields",
            "metadata.indices.*.settings.index.translog.sync_interval",
            "metadata.indices.*.settings.index.refresh_interval",
            "metadata.indices.*.settings.index.default_pipeline",
            "metadata.indices.*.settings.index.final_pipeline");
    /** An Elasticsearch time value: {@code 5s}, {@code 500ms}, {@code 1m}... */
    private static final java.util.regex.Pattern TIME_VALUE =
            java.util.regex.Pattern.compile("(\\d+)\\s*(nanos|micros|ms|s|m|h|d)");

    private final MetadataCalls calls;

    public ClusterMetadataClient(RestClient client) {
        this.calls = new MetadataCalls(client);
    }

    /** Metadata of the given concrete indices (or expressions); missing ones are left out. */
    public Map<String, IndexMetadata> indices(Collection<String> names) throws IOException {
        Request request = new Request("GET", "/_cluster/state/metadata/" + MetadataCalls.expression(names));
        request.addParameter("filter_path", FILTER);
        request.addParameter("ignore_unavailable", "true");
        request.addParameter("allow_no_indices", "true");
        JsonNode root = calls.get(request).orElse(null);
        Map<String, IndexMetadata> result = new HashMap<>();
        if (root == null) {
            return result;
        }
        JsonNode indices = root.path("metadata").path("indices");
        for (Map.Entry<String, JsonNode> e : indices.properties()) {
            result.put(e.getKey(), parse(e.getKey(), e.getValue()));
        }
        return result;
    }

    static IndexMetadata parse(String name, JsonNode node) {
        JsonNode index = node.path("settings").path("index");
        int shards = index.path("number_of_shards").asInt();
        int routingNumShards = node.path("routing_num_shards").asInt(shards);
        int partitionSize = index.path("routing_partition_size").asInt(1);
        boolean routedByDocument = !"time_series".equals(index.path("mode").asText())
                && index.path("routing_path").isMissingNode()
                && !index.path("logsdb").path("route_on_sort_fields").asBoolean(false);
        JsonNode terms = node.path("primary_terms");
        long[] primaryTerms = new long[shards];
        for (int s = 0; s < shards; s++) {
            primaryTerms[s] = terms.path(Integer.toString(s)).asLong(-1);
        }
        JsonNode syncInterval = index.path("translog").path("sync_interval");
        List<String> pipelines = new ArrayList<>(2);
        for (String key : List.of("default_pipeline", "final_pipeline")) {
            String id = index.path(key).asText("");
            if (!id.isEmpty() && !"_none".equals(id)) {
                pipelines.add(id);
            }
        }
        return new IndexMetadata(
                name,
                index.path("uuid").asText(""),
                shards,
                routingNumShards,
                partitionSize,
                routedByDocument,
                primaryTerms,
                syncInterval.isTextual()
                        ? timeValue(syncInterval.asText())
                        : IndexMetadata.DEFAULT_TRANSLOG_SYNC_INTERVAL,
                List.copyOf(pipelines),
                refreshInterval(index.path("refresh_interval")));
    }

    /** {@code index.refresh_interval}: unset is Elasticsearch's 1 s, {@code -1} no periodic refresh. */
    static Duration refreshInterval(JsonNode setting) {
        if (!setting.isTextual()) {
            return IndexMetadata.DEFAULT_REFRESH_INTERVAL;
        }
        String value = setting.asText().trim();
        return value.startsWith("-") ? IndexMetadata.NO_REFRESH : timeValue(value);
    }

    /** An Elasticsearch time value such as {@code 5s}, {@code 500ms}, {@code 1m}. */
    static Duration timeValue(String value) {
        java.util.regex.Matcher m = TIME_VALUE.matcher(value.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("not an Elasticsearch time value: '" + value + "'");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "nanos" -> Duration.ofNanos(n);
            case "micros" -> Duration.ofNanos(n * 1_000);
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
    }

    /**
     * The concrete index a write to {@code name} lands in: the write index of a data stream or
     * alias, the index itself, or empty when nothing by that name exists yet.
     */
    public Optional<String> writeIndex(String name) throws IOException {
        // _resolve/index is core (the _data_stream API is a module some distributions lack); a data
        // stream's write index is its newest backing index, listed last.
        Optional<JsonNode> resolved = calls.get(new Request("GET", "/_resolve/index/" + MetadataCalls.encode(name)));
        if (resolved.isPresent()) {
            for (JsonNode stream : resolved.get().path("data_streams")) {
                JsonNode backing = stream.path("backing_indices");
                if (name.equals(stream.path("name").asText()) && backing.size() > 0) {
                    return Optional.of(backing.get(backing.size() - 1).asText());
                }
            }
        }
        Optional<JsonNode> alias = calls.get(new Request("GET", "/_alias/" + MetadataCalls.encode(name)));
        if (alias.isPresent()) {
            List<String> members = new ArrayList<>();
            for (Map.Entry<String, JsonNode> e : alias.get().properties()) {
                members.add(e.getKey());
                if (e.getValue()
                        .path("aliases")
                        .path(name)
                        .path("is_write_index")
                        .asBoolean(false)) {
                    return Optional.of(e.getKey());
                }
            }
            if (members.size() == 1) {
                return Optional.of(members.get(0));
            }
            return Optional.empty(); // several indices, none marked for writes: Elasticsearch rejects writes anyway
        }
        return Optional.empty();
    }

    /**
     * The pipelines every write to {@code index} goes through whatever the bulk item names:
     * {@code index.default_pipeline} (unless the item names another) and {@code index.final_pipeline}.
     * {@code _none} and missing settings are left out.
     */
    public List<String> indexPipelines(String index) throws IOException {
        Request request = new Request(
                "GET", "/" + MetadataCalls.encode(index) + "/_settings/index.default_pipeline,index.final_pipeline");
        request.addParameter("flat_settings", "true");
        List<String> pipelines = new ArrayList<>();
        JsonNode settings =
                calls.get(request).map(r -> r.path(index).path("settings")).orElse(null);
        if (settings != null) {
            for (String key : List.of("index.default_pipeline", "index.final_pipeline")) {
                String id = settings.path(key).asText("");
                if (!id.isEmpty() && !"_none".equals(id)) {
                    pipelines.add(id);
                }
            }
        }
        return pipelines;
    }

    /** The definition of ingest pipeline {@code id} ({@code GET _ingest/pipeline/<id>}), or empty when there is none. */
    public Optional<JsonNode> pipeline(String id) throws IOException {
        return calls.get(new Request("GET", "/_ingest/pipeline/" + MetadataCalls.encode(id)))
                .map(r -> r.path(id))
                .filter(p -> !p.isMissingNode());
    }

    /**
     * The shards Elasticsearch itself picks for a routing value: one, or up to
     * {@code routing_partition_size} for a partitioned index.
     */
    public Set<Integer> shardsForRouting(String index, String routing) throws IOException {
        Request request = new Request("GET", "/" + MetadataCalls.encode(index) + "/_search_shards");
        request.addParameter("routing", routing);
        JsonNode root = calls.get(request)
                .orElseThrow(() -> new IOException("index " + index + " disappeared while calibrating"));
        Set<Integer> shards = new TreeSet<>();
        for (JsonNode group : root.path("shards")) {
            shards.add(group.get(0).path("shard").asInt());
        }
        if (shards.isEmpty()) {
            throw new IOException("_search_shards for routing '" + routing + "' on " + index + " named no shard");
        }
        return shards;
    }
}
