package io.kes.connector.cluster;

import io.kes.connector.SinkSettings;
import io.kes.connector.internal.DaemonThreads;
import io.kes.connector.internal.Housekeeping;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.http.HttpHost;
import org.elasticsearch.client.Node;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.ResponseException;
import org.elasticsearch.client.RestClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which node holds the primary of each shard kes writes, so that a single-shard bulk can go
 * straight to it: the node that receives a bulk coordinates it, and when that is the primary's
 * node, the documents cross the network once instead of twice and no other node parses them (on
 * three nodes with round-robin bulks, measured: 1.2-1.3x the docs/s, a fifth less Elasticsearch
 * CPU per document).
 *
 * <p>Refreshed on a thread of its own every 30 s ({@link Housekeeping}), and soon after a new index is first written:
 * {@code _nodes/http} for the addresses the nodes publish, and the routing table for the shards.
 * A node is used only after it answered once at that address through kes's client (behind a
 * proxy, with certificates for other names, or on a network kes cannot reach, it does not; its
 * shards' bulks then go to the configured hosts); that question goes to the node alone, never
 * through the shared client, which hands a request for a node it marked dead to a configured host.
 * A stale entry costs nothing but the hop it meant to save: the node that gets the bulk
 * coordinates it, as any node would. The task thread only reads a published map.
 */
@Internal
public final class PrimaryNodes implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PrimaryNodes.class);
    /** Every so many refreshes, nodes that did not answer get another chance. */
    private static final int REPROBE_EVERY = 10;

    private static final long FORGET_AFTER_MILLIS = 10 * 60_000;

    private final RestClient client;
    /** A client of one node alone, closed after the one question asked through it. */
    private final Function<HttpHost, RestClient> nodeClient;

    private final ClusterMetadataClient metadata;
    private final NodePlacement placement;
    private final List<Node> configured;
    private final String scheme;
    private final ScheduledExecutorService thread;
    /** Index names as written (alias, data stream or index) whose shards to locate → when a bulk last went there. */
    private final Map<String, Long> indices = new ConcurrentHashMap<>();
    /** HTTP addresses that answered, and that did not. */
    private final Map<HttpHost, Boolean> reachable = new HashMap<>();

    private volatile Map<String, HttpHost[]> primaryHosts = Map.of();
    /** Each published HTTP address → the node that published it, as of the last refresh. */
    private volatile Map<HttpHost, SentTo> nodesByAddress = Map.of();

    private volatile boolean unavailable;
    private int refreshes;

    /** @param client the shared client, whose nodes this adds to: bulks aimed at a node go through it */
    public PrimaryNodes(RestClient client, SinkSettings settings, String threadName) {
        this(client, node -> RestClients.forNode(settings, node), threadName);
    }

    @VisibleForTesting
    PrimaryNodes(RestClient client, Function<HttpHost, RestClient> nodeClient, String threadName) {
        this.client = client;
        this.nodeClient = nodeClient;
        this.metadata = new ClusterMetadataClient(client);
        this.placement = new NodePlacement(client);
        this.configured = List.copyOf(client.getNodes());
        this.scheme = configured.get(0).getHost().getSchemeName();
        this.thread = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named(threadName));
        thread.scheduleWithFixedDelay(
                this::refresh,
                Housekeeping.PRIMARY_REFRESH_MILLIS,
                Housekeeping.PRIMARY_REFRESH_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    /**
     * The node holding the primary of {@code shard} of {@code index}, when known and reachable;
     * null sends the bulk to the configured hosts. The first call for an index schedules a refresh.
     */
    public HttpHost primaryOf(String index, int shard) {
        HttpHost[] hosts = primaryHosts.get(index);
        boolean firstSeen = indices.put(index, System.currentTimeMillis()) == null;
        if (hosts == null) {
            if (!unavailable && firstSeen) {
                try {
                    thread.execute(this::refresh);
                } catch (java.util.concurrent.RejectedExecutionException closed) {
                    // the writer is closing
                }
            }
            return null;
        }
        return shard >= 0 && shard < hosts.length ? hosts[shard] : null;
    }

    /**
     * The node a bulk sent to {@code address} now reaches, as of the last refresh: its id and
     * ephemeral id when a node publishes that address, else the address alone.
     */
    public SentTo sentTo(HttpHost address) {
        SentTo node = nodesByAddress.get(address);
        return node != null ? node : SentTo.address(address);
    }

    /**
     * Asks the cluster, through the configured hosts and on this class's thread, whether the
     * process that got a bulk at {@code sent} is gone ({@link NodeRestarts#gone}); {@code answer}
     * gets false when that cannot be read. For a wait whose node does not answer at that address.
     */
    public void askWhetherGone(SentTo sent, Consumer<Boolean> answer) {
        if (sent.nodeId() == null) {
            answer.accept(false);
            return;
        }
        try {
            thread.execute(() -> {
                boolean gone;
                try {
                    gone = NodeRestarts.read(client, scheme).gone(sent);
                } catch (IOException | RuntimeException e) {
                    LOG.debug("Could not read the cluster's nodes: {}", e.toString());
                    gone = false;
                }
                if (gone) {
                    LOG.info(
                            "Node {} restarted and now listens elsewhere: its process at {} runs none of the bulks kes sent there",
                            sent.nodeId(),
                            sent.address());
                }
                answer.accept(gone);
            });
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            answer.accept(false); // the writer is closing
        }
    }

    /**
     * Reads the cluster's nodes on the read thread and tells {@code answer} whether node {@code
     * answering}, which answered a listing at the address {@code sent} went to, answers for that
     * address ({@link NodeRestarts#answersFor}); false when that cannot be read.
     */
    public void askWhetherAnswersFor(SentTo sent, String answering, Consumer<Boolean> answer) {
        try {
            thread.execute(() -> {
                boolean answers;
                try {
                    answers = NodeRestarts.read(client, scheme).answersFor(sent, answering);
                } catch (IOException | RuntimeException e) {
                    LOG.debug("Could not read the cluster's nodes: {}", e.toString());
                    answers = false;
                }
                answer.accept(answers);
            });
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            answer.accept(false); // the writer is closing
        }
    }

    private void refresh() {
        if (indices.isEmpty() || unavailable) {
            return;
        }
        if (++refreshes % REPROBE_EVERY == 0) {
            reachable.values().removeIf(answered -> !answered);
        }
        // Date-named indices come and go: a name no bulk went to for a while is not refreshed again.
        long forgetBefore = System.currentTimeMillis() - FORGET_AFTER_MILLIS;
        indices.values().removeIf(lastUsed -> lastUsed < forgetBefore);
        try {
            Map<String, HttpHost> nodeHosts = placement.nodeHttpAddresses(scheme);
            reachable
                    .keySet()
                    .retainAll(new java.util.HashSet<>(nodeHosts.values())); // nodes gone (pod addresses change)
            addToClient(nodeHosts.values());
            Map<String, String> concreteOf = new HashMap<>();
            for (String index : indices.keySet()) {
                concreteOf.put(index, metadata.writeIndex(index).orElse(index));
            }
            // one routing-table read for every index written, not one per index
            NodePlacement.Primaries primaries = placement.primaries(new TreeSet<>(concreteOf.values()));
            Map<String, String[]> nodeIdsOf = primaries.nodeIds();
            Map<HttpHost, SentTo> byAddress = new HashMap<>();
            nodeHosts.forEach((id, host) -> byAddress.put(
                    host, new SentTo(host, id, primaries.ephemeralIds().get(id))));
            nodesByAddress = Map.copyOf(byAddress);
            Map<String, HttpHost[]> next = new HashMap<>();
            for (Map.Entry<String, String> index : concreteOf.entrySet()) {
                String[] nodeIds = nodeIdsOf.get(index.getValue());
                if (nodeIds == null) {
                    continue;
                }
                HttpHost[] hosts = new HttpHost[nodeIds.length];
                for (int shard = 0; shard < nodeIds.length; shard++) {
                    HttpHost host = nodeIds[shard] == null ? null : nodeHosts.get(nodeIds[shard]);
                    hosts[shard] = host != null && answers(host) ? host : null;
                }
                next.put(index.getKey(), hosts);
            }
            primaryHosts = Map.copyOf(next);
        } catch (ResponseException e) {
            int status = e.getResponse().getStatusLine().getStatusCode();
            if (status == 401 || status == 403 || status == 404 || status == 410) {
                // no monitor privilege, or a deployment without node APIs (serverless): not an error
                unavailable = true;
                LOG.info(
                        "Bulks go to the configured hosts: the node and shard locations are not readable here (HTTP {}).",
                        status);
            } else {
                LOG.debug("Could not refresh primary locations: {}", e.toString());
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("Could not refresh primary locations: {}", e.toString());
        }
    }

    /**
     * Whether the node answers {@code _cluster/health} at {@code host} with kes's TLS and
     * credentials, asked through a client of that node alone. Remembered; a node that did not answer
     * is asked again every few minutes.
     */
    private boolean answers(HttpHost host) {
        return reachable.computeIfAbsent(host, h -> {
            try (RestClient node = nodeClient.apply(h)) {
                node.performRequest(new Request("GET", "/_cluster/health"));
                return true;
            } catch (Exception e) {
                LOG.info(
                        "Node {} does not answer at its published address ({}); its shards' bulks go to the configured hosts.",
                        h,
                        e.toString());
                return false;
            }
        });
    }

    /**
     * The client can only send to nodes it knows. The selector keeps requests without a target on
     * the configured hosts, so a node added here gets only the bulks aimed at it.
     */
    private void addToClient(java.util.Collection<HttpHost> hosts) {
        Set<HttpHost> known = new LinkedHashSet<>();
        client.getNodes().forEach(n -> known.add(n.getHost()));
        if (known.containsAll(hosts)) {
            return;
        }
        List<Node> nodes = new ArrayList<>(configured);
        for (HttpHost h : new LinkedHashSet<>(hosts)) {
            if (configured.stream().noneMatch(n -> n.getHost().equals(h))) {
                nodes.add(new Node(h));
            }
        }
        client.setNodes(nodes);
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
