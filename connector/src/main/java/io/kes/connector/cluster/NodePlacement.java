package io.kes.connector.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.http.HttpHost;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.RestClient;

/**
 * Where the cluster's nodes answer and which of them holds each shard's primary: what
 * {@link PrimaryNodes} needs to send a bulk straight to the primary's node. Blocking calls, on
 * PrimaryNodes' refresh, never per document.
 */
final class NodePlacement {

    private final MetadataCalls calls;

    NodePlacement(RestClient client) {
        this.calls = new MetadataCalls(client);
    }

    /**
     * Node id → HTTP address each node publishes ({@code _nodes/http}); nodes without HTTP are left
     * out. A {@code hostname/ip:port} address keeps the hostname, which TLS certificates name.
     */
    public Map<String, HttpHost> nodeHttpAddresses(String scheme) throws IOException {
        Request request = new Request("GET", "/_nodes/http");
        request.addParameter("filter_path", "nodes.*.http.publish_address");
        Map<String, HttpHost> result = new HashMap<>();
        JsonNode nodes = calls.get(request).map(r -> r.path("nodes")).orElse(null);
        if (nodes == null) {
            return result;
        }
        for (Map.Entry<String, JsonNode> node : nodes.properties()) {
            String address =
                    node.getValue().path("http").path("publish_address").asText("");
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
     * Where the primaries are and which process each node is now, from one cluster state read.
     *
     * @param nodeIds concrete index → the id of the node holding each shard's started primary (null
     *     where there is none)
     * @param ephemeralIds node id → its ephemeral id, new on each start of the node ({@link NodeRestarts})
     */
    record Primaries(Map<String, String[]> nodeIds, Map<String, String> ephemeralIds) {}

    /** The routing table of {@code indices}, and every node's ephemeral id in the same read. */
    public Primaries primaries(Collection<String> indices) throws IOException {
        Request request =
                new Request("GET", "/_cluster/state/routing_table,nodes/" + MetadataCalls.expression(indices));
        request.addParameter(
                "filter_path",
                "routing_table.indices.*.shards.*.primary,routing_table.indices.*.shards.*.node,"
                        + "routing_table.indices.*.shards.*.state,nodes.*.ephemeral_id");
        request.addParameter("ignore_unavailable", "true");
        request.addParameter("allow_no_indices", "true");
        Map<String, String[]> result = new HashMap<>();
        Map<String, String> ephemeralIds = new HashMap<>();
        JsonNode state = calls.get(request).orElse(null);
        if (state == null) {
            return new Primaries(result, ephemeralIds);
        }
        for (Map.Entry<String, JsonNode> node : state.path("nodes").properties()) {
            String ephemeralId = node.getValue().path("ephemeral_id").asText(null);
            if (ephemeralId != null) {
                ephemeralIds.put(node.getKey(), ephemeralId);
            }
        }
        JsonNode byIndex = state.path("routing_table").path("indices");
        for (Map.Entry<String, JsonNode> index : byIndex.properties()) {
            JsonNode shards = index.getValue().path("shards");
            String[] nodeIds = new String[shards.size()];
            for (Map.Entry<String, JsonNode> shard : shards.properties()) {
                int number = Integer.parseInt(shard.getKey());
                for (JsonNode copy : shard.getValue()) {
                    if (copy.path("primary").asBoolean(false)
                            && "STARTED".equals(copy.path("state").asText())
                            && number < nodeIds.length) {
                        nodeIds[number] = copy.path("node").asText();
                    }
                }
            }
            result.put(index.getKey(), nodeIds);
        }
        return new Primaries(result, ephemeralIds);
    }
}
