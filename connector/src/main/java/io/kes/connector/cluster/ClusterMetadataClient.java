package io.kes.connector.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.http.HttpHost;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.Response;
import org.elasticsearch.client.ResponseException;
import org.elasticsearch.client.RestClient;

/**
 * Reads index metadata, write indices of aliases and data streams, and shard placement of probe
 * routing values from Elasticsearch. Blocking calls: they run when an index is first seen or its
 * cached metadata expires, and at checkpoints, never per document.
 */
@PublicEvolving
public final class ClusterMetadataClient {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String FILTER = String.join(",",
            "metadata.indices.*.routing_num_shards",
            "metadata.indices.*.primary_terms",
            "metadata.indices.*.settings.index.number_of_shards",
            "metadata.indices.*.settings.index.uuid",
            "metadata.indices.*.settings.index.routing_partition_size",
            "metadata.indices.*.settings.index.mode",
            "metadata.indices.*.settings.index.routing_path",
            "metadata.indices.*.settings.index.logsdb.route_on_sort_fields",
            "metadata.indices.*.settings.index.translog.sync_interval");
    /** An Elasticsearch time value: {@code 5s}, {@code 500ms}, {@code 1m}... */
    private static final java.util.regex.Pattern TIME_VALUE = java.util.regex.Pattern.compile("(\\d+)\\s*(nanos|micros|ms|s|m|h|d)");

    private final RestClient client;

    public ClusterMetadataClient(RestClient client) {
        this.client = client;
    }

    /** Metadata of the given concrete indices (or expressions); missing ones are left out. */
    public Map<String, IndexMetadata> indices(Collection<String> names) throws IOException {
        Request request = new Request("GET", "/_cluster/state/metadata/" + expression(names));
        request.addParameter("filter_path", FILTER);
        request.addParameter("ignore_unavailable", "true");
        request.addParameter("allow_no_indices", "true");
        JsonNode root = call(request).orElse(null);
        Map<String, IndexMetadata> result = new HashMap<>();
        if (root == null) {
            return result;
        }
        JsonNode indices = root.path("metadata").path("indices");
        for (Iterator<Map.Entry<String, JsonNode>> it = indices.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
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
        return new IndexMetadata(name, index.path("uuid").asText(""), shards, routingNumShards, partitionSize, routedByDocument, primaryTerms,
                syncInterval.isTextual() ? timeValue(syncInterval.asText()) : IndexMetadata.DEFAULT_TRANSLOG_SYNC_INTERVAL);
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

    /** Sequence numbers of a primary shard copy: the highest one it assigned, and the highest up to which its translog is fsynced. */
    public record ShardSeqNos(long maxSeqNo, long persistedLocalCheckpoint) {
        public boolean persisted(long seqNo) {
            return persistedLocalCheckpoint >= seqNo;
        }
    }

    /**
     * index → shard → sequence numbers of its primary copy ({@code _stats} at shard level, whose
     * {@code local_checkpoint} is the persisted one: everything up to it survives a crash). Shards
     * without a started primary are left out.
     */
    public Map<String, Map<Integer, ShardSeqNos>> primarySeqNos(Collection<String> indices) throws IOException {
        Request request = new Request("GET", "/" + expression(indices) + "/_stats/translog");
        request.addParameter("level", "shards");
        request.addParameter("ignore_unavailable", "true");
        request.addParameter("filter_path", "indices.*.shards.*.routing.primary,indices.*.shards.*.seq_no");
        JsonNode root = call(request).orElse(null);
        Map<String, Map<Integer, ShardSeqNos>> result = new HashMap<>();
        if (root == null) {
            return result;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = root.path("indices").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> index = it.next();
            Map<Integer, ShardSeqNos> shards = new HashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> s = index.getValue().path("shards").fields(); s.hasNext(); ) {
                Map.Entry<String, JsonNode> shard = s.next();
                for (JsonNode copy : shard.getValue()) {
                    JsonNode seqNo = copy.path("seq_no");
                    if (copy.path("routing").path("primary").asBoolean(false) && seqNo.has("max_seq_no")) {
                        shards.put(Integer.parseInt(shard.getKey()), new ShardSeqNos(seqNo.path("max_seq_no").asLong(),
                                seqNo.path("local_checkpoint").asLong()));
                    }
                }
            }
            result.put(index.getKey(), shards);
        }
        return result;
    }

    /**
     * The concrete index a write to {@code name} lands in: the write index of a data stream or
     * alias, the index itself, or empty when nothing by that name exists yet.
     */
    public Optional<String> writeIndex(String name) throws IOException {
        // _resolve/index is core (the _data_stream API is a module some distributions lack); a data
        // stream's write index is its newest backing index, listed last.
        Optional<JsonNode> resolved = call(new Request("GET", "/_resolve/index/" + encode(name)));
        if (resolved.isPresent()) {
            for (JsonNode stream : resolved.get().path("data_streams")) {
                JsonNode backing = stream.path("backing_indices");
                if (name.equals(stream.path("name").asText()) && backing.size() > 0) {
                    return Optional.of(backing.get(backing.size() - 1).asText());
                }
            }
        }
        Optional<JsonNode> alias = call(new Request("GET", "/_alias/" + encode(name)));
        if (alias.isPresent()) {
            List<String> members = new ArrayList<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = alias.get().fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                members.add(e.getKey());
                if (e.getValue().path("aliases").path(name).path("is_write_index").asBoolean(false)) {
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
        Request request = new Request("GET", "/" + encode(index) + "/_settings/index.default_pipeline,index.final_pipeline");
        request.addParameter("flat_settings", "true");
        List<String> pipelines = new ArrayList<>();
        JsonNode settings = call(request).map(r -> r.path(index).path("settings")).orElse(null);
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
        return call(new Request("GET", "/_ingest/pipeline/" + encode(id))).map(r -> r.path(id)).filter(p -> !p.isMissingNode());
    }

    /**
     * The shards Elasticsearch itself picks for a routing value: one, or up to
     * {@code routing_partition_size} for a partitioned index.
     */
    public Set<Integer> shardsForRouting(String index, String routing) throws IOException {
        Request request = new Request("GET", "/" + encode(index) + "/_search_shards");
        request.addParameter("routing", routing);
        JsonNode root = call(request).orElseThrow(() -> new IOException("index " + index + " disappeared while calibrating"));
        Set<Integer> shards = new TreeSet<>();
        for (JsonNode group : root.path("shards")) {
            shards.add(group.get(0).path("shard").asInt());
        }
        if (shards.isEmpty()) {
            throw new IOException("_search_shards for routing '" + routing + "' on " + index + " named no shard");
        }
        return shards;
    }

    /**
     * Node id → HTTP address each node publishes ({@code _nodes/http}); nodes without HTTP are left
     * out. A {@code hostname/ip:port} address keeps the hostname, which TLS certificates name.
     */
    public Map<String, HttpHost> nodeHttpAddresses(String scheme) throws IOException {
        Request request = new Request("GET", "/_nodes/http");
        request.addParameter("filter_path", "nodes.*.http.publish_address");
        Map<String, HttpHost> result = new HashMap<>();
        JsonNode nodes = call(request).map(r -> r.path("nodes")).orElse(null);
        if (nodes == null) {
            return result;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = nodes.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> node = it.next();
            String address = node.getValue().path("http").path("publish_address").asText("");
            if (!address.isEmpty()) {
                result.put(node.getKey(), httpHost(scheme, address));
            }
        }
        return result;
    }

    static HttpHost httpHost(String scheme, String publishAddress) {
        String hostname = null;
        String address = publishAddress;
        int slash = publishAddress.indexOf('/');
        if (slash >= 0) {
            hostname = slash > 0 ? publishAddress.substring(0, slash) : null;
            address = publishAddress.substring(slash + 1);
        }
        java.net.URI uri = java.net.URI.create(scheme + "://" + address);
        return new HttpHost(hostname != null ? hostname : uri.getHost(), uri.getPort(), scheme);
    }

    /**
     * Concrete index → the id of the node holding each shard's started primary (null where there
     * is none), from the cluster state's routing table.
     */
    public Map<String, String[]> primaryNodeIds(Collection<String> indices) throws IOException {
        Request request = new Request("GET", "/_cluster/state/routing_table/" + expression(indices));
        request.addParameter("filter_path", "routing_table.indices.*.shards.*.primary,routing_table.indices.*.shards.*.node,"
                + "routing_table.indices.*.shards.*.state");
        request.addParameter("ignore_unavailable", "true");
        request.addParameter("allow_no_indices", "true");
        Map<String, String[]> result = new HashMap<>();
        JsonNode byIndex = call(request).map(r -> r.path("routing_table").path("indices")).orElse(null);
        if (byIndex == null) {
            return result;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = byIndex.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> index = it.next();
            JsonNode shards = index.getValue().path("shards");
            String[] nodeIds = new String[shards.size()];
            for (Iterator<Map.Entry<String, JsonNode>> s = shards.fields(); s.hasNext(); ) {
                Map.Entry<String, JsonNode> shard = s.next();
                int number = Integer.parseInt(shard.getKey());
                for (JsonNode copy : shard.getValue()) {
                    if (copy.path("primary").asBoolean(false) && "STARTED".equals(copy.path("state").asText()) && number < nodeIds.length) {
                        nodeIds[number] = copy.path("node").asText();
                    }
                }
            }
            result.put(index.getKey(), nodeIds);
        }
        return result;
    }

    /**
     * {@code _flush}: Lucene commit and translog fsync of every shard of these indices. A flush
     * that some shard copies failed answers 200 all the same; their count is in {@code _shards}.
     *
     * @throws IOException also when a shard copy failed to flush
     */
    public void flush(Collection<String> indices) throws IOException {
        Request flush = new Request("POST", "/" + expression(indices) + "/_flush");
        flush.addParameter("ignore_unavailable", "true");
        Response response = client.performRequest(flush);
        try (InputStream in = response.getEntity().getContent()) {
            JsonNode shards = JSON.readTree(in).path("_shards");
            if (shards.path("failed").asInt(0) > 0) {
                throw new IOException("_flush of " + indices + " failed on " + shards.path("failed").asInt() + " shard copies: "
                        + shards.path("failures"));
            }
        }
    }

    private static String expression(Collection<String> names) {
        return String.join(",", names.stream().map(ClusterMetadataClient::encode).toList());
    }

    /** A GET whose 404 means "not there" (and a 400 "no handler" means the feature is absent). */
    private Optional<JsonNode> call(Request request) throws IOException {
        try {
            Response response = client.performRequest(request);
            try (InputStream in = response.getEntity().getContent()) {
                return Optional.of(JSON.readTree(in));
            }
        } catch (ResponseException e) {
            int status = e.getResponse().getStatusLine().getStatusCode();
            if (status == 404 || status == 400) {
                return Optional.empty();
            }
            throw e;
        }
    }

    static String encode(String name) {
        return URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
