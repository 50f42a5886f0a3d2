package io.kes.connector.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.http.HttpHost;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.RestClient;

/**
 * Whether the Elasticsearch process that may still run kes's bulks is gone, for a wait that asks a
 * node which does not answer (issue 37 item 6: a node that came back under a new address leaves
 * its old one silent, and the wait for it ran until {@code retry.max_time}, twice).
 *
 * <p>A node is named by its id and its ephemeral id ({@code GET _cluster/state/nodes}). The id lives
 * in the node's data path, which one process holds at a time (its lock file); the ephemeral id is
 * new on every start. So <b>the same id listed with another ephemeral id means the process that
 * got the bulk has ended</b>: the node restarted, and a restarted node runs none of its earlier
 * bulks. That node is gone, wherever it now listens.
 *
 * <p>A node the cluster no longer lists is <b>not</b> gone, even when its shards have new primary
 * terms: a frozen (long GC, SIGSTOP) or partitioned node is dropped by the master and its shards
 * promoted elsewhere while it still holds the bulk; when it resumes and rejoins it retries the
 * bulk's shard requests on the new primaries (a bulk waits for a cluster state with a master up to
 * its timeout, one minute by default, counted from when it starts, which for a bulk queued on a
 * frozen node is after it resumes). The cluster's view cannot tell that node from one replaced by
 * a new data path, so the wait goes on for it, as it did: only its own answer, or a refused
 * connection, ends it.
 *
 * <p>What kes knew of the node when it sent the bulk ({@link SentTo}) comes from its last read of
 * the nodes, up to half a minute old: the node may have restarted in between and received the
 * bulk as its new process, at the same address. So {@link #gone} also asks that the node now
 * publishes another HTTP address, and that no node publishes the silent one: the process now
 * holding the id listens elsewhere, so it is not the one the bulk reached at that address.
 */
@Internal
public final class NodeRestarts {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Node id → ephemeral id of the nodes the cluster lists now. */
    private final Map<String, String> listed;
    /** Node id → the HTTP address it publishes now; empty when not read. */
    private final Map<String, HttpHost> published;

    private NodeRestarts(Map<String, String> listed, Map<String, HttpHost> published) {
        this.listed = Map.copyOf(listed);
        this.published = Map.copyOf(published);
    }

    /** The request whose answer {@link #parse} reads: every node's ephemeral id, nothing else. */
    public static Request request() {
        Request request = new Request("GET", "/_cluster/state/nodes");
        request.addParameter("filter_path", "nodes.*.ephemeral_id");
        return request;
    }

    public static NodeRestarts parse(InputStream clusterStateNodes) throws IOException {
        return of(JSON.readTree(clusterStateNodes).path("nodes"), Map.of());
    }

    /**
     * From the {@code nodes} of a cluster state read ({@code {"<id>":{"ephemeral_id":...}}}) and
     * the HTTP addresses the nodes publish ({@code _nodes/http}).
     */
    static NodeRestarts of(JsonNode nodes, Map<String, HttpHost> published) {
        Map<String, String> listed = new HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = nodes.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> node = it.next();
            String ephemeralId = node.getValue().path("ephemeral_id").asText(null);
            if (ephemeralId != null) {
                listed.put(node.getKey(), ephemeralId);
            }
        }
        return new NodeRestarts(listed, published);
    }

    static NodeRestarts of(Map<String, String> listed) {
        return new NodeRestarts(listed, Map.of());
    }

    static NodeRestarts of(Map<String, String> listed, Map<String, HttpHost> published) {
        return new NodeRestarts(listed, published);
    }

    /**
     * The cluster's nodes now, read through {@code client} (the configured hosts, never the silent
     * node): their ephemeral ids and the HTTP addresses they publish, in {@code scheme}.
     */
    public static NodeRestarts read(RestClient client, String scheme) throws IOException {
        Map<String, HttpHost> published = new NodePlacement(client).nodeHttpAddresses(scheme);
        try (InputStream in = client.performRequest(request()).getEntity().getContent()) {
            return of(JSON.readTree(in).path("nodes"), published);
        }
    }

    /** The ephemeral id the cluster lists for node {@code nodeId} now, or null: not listed. */
    public String ephemeralIdOf(String nodeId) {
        return listed.get(nodeId);
    }

    /**
     * Whether the process that was node {@code nodeId} with {@code ephemeralId} when kes sent it a
     * bulk has ended: the cluster lists that id with another ephemeral id. False while it is not
     * listed at all: it may be frozen or cut off, and still apply the bulk when it rejoins.
     */
    public boolean restarted(String nodeId, String ephemeralId) {
        String now = listed.get(nodeId);
        return now != null && !now.equals(ephemeralId);
    }

    /**
     * Whether no process that may run a bulk sent to {@code sent} is left: its node {@link
     * #restarted}, now publishes another HTTP address, and no node publishes the one the bulk went
     * to. False when kes did not know the node when it sent the bulk.
     */
    public boolean gone(SentTo sent) {
        if (sent.nodeId() == null || sent.ephemeralId() == null || !restarted(sent.nodeId(), sent.ephemeralId())) {
            return false;
        }
        HttpHost now = published.get(sent.nodeId());
        return now != null && !now.equals(sent.address()) && !published.containsValue(sent.address());
    }

    /**
     * Whether node {@code answering}, which answered a listing asked at the address a bulk went to
     * ({@code sent}), is the process listening there: it alone publishes that address. Then the
     * process the bulk reached there is either this one (and its answer covers it) or one that let
     * go of the address, which a running Elasticsearch process does not: it ended (a node back at
     * its address under a new node id, its data path wiped). False when another node or none
     * publishes it: a proxy or load balancer picked {@code answering}, which says nothing of the
     * node the bulk went to.
     */
    public boolean answersFor(SentTo sent, String answering) {
        long publishing =
                published.values().stream().filter(sent.address()::equals).count();
        return publishing == 1 && sent.address().equals(published.get(answering));
    }
}
