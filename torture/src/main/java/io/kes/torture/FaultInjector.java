package io.kes.torture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.stack.FaultProxy;
import io.kes.stack.Http;
import io.kes.stack.SearchNode;
import io.kes.torture.FaultPlan.Fault;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;

/**
 * Injects one fault of a plan and returns when it is over: a killed Elasticsearch is running
 * again, a paused one resumed (always, even on failure), a storm has passed, a killed job started
 * again with {@code --restore-latest}.
 */
final class FaultInjector {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final TortureServers servers;
    private final PrintStream out;

    FaultInjector(TortureServers servers, PrintStream out) {
        this.servers = servers;
        this.out = out;
    }

    /** @param rolledShards the shard count of the alias's write index, updated by a rollover */
    void inject(Fault fault, Names names, JobProcess job, int[] rolledShards) throws Exception {
        long began = System.nanoTime();
        try {
            injectNow(fault, names, job, rolledShards);
        } finally {
            out.printf(
                    "  %6.1f s  %s took %.1f s%n", fault.atMillis() / 1000.0, fault, (System.nanoTime() - began) / 1e9);
        }
    }

    private void injectNow(Fault fault, Names names, JobProcess job, int[] rolledShards) throws Exception {
        FaultProxy proxy = servers.proxy;
        switch (fault.kind()) {
            case ES_KILL -> {
                servers.node.kill();
                Thread.sleep(fault.amount() * 1000L);
                servers.node.start();
            }
            case ES_PAUSE -> {
                servers.node.pause();
                try {
                    Thread.sleep(fault.amount() * 1000L);
                } finally {
                    servers.node.resume();
                }
            }
            case KAFKA_RESTART -> {
                servers.kafka.stop();
                Thread.sleep(1000);
                servers.kafka.start();
            }
            case JOB_KILL -> {
                job.kill();
                job.start(true);
            }
            case REJECTION_STORM -> {
                proxy.rejectBulksFor(Duration.ofSeconds(fault.amount()));
                Thread.sleep(fault.amount() * 1000L);
            }
            case CONNECTION_RESET -> {
                for (int i = 0; i < 3; i++) {
                    proxy.resetConnections();
                    Thread.sleep(300);
                }
            }
            case LOST_RESPONSES -> {
                long before = proxy.stats().lostResponses();
                proxy.loseBulkResponses(fault.amount());
                long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
                while (proxy.stats().lostResponses() - before < fault.amount() && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                }
                proxy.heal();
            }
            case HELD_BULK -> holdABulk(names.deletes(), proxy);
            case NODE_STALL -> stallANode(names, fault.amount());
            case ROLLOVER -> {
                int next = rolledShards[0] % 4 + 1; // 2 -> 3 -> 4 -> 1 -> 2: always a different shard count
                servers.node
                        .http()
                        .send(
                                "POST",
                                "/" + names.rolled() + "/_rollover",
                                "{\"settings\":" + Schedule.indexSettings(next, servers.replicas()) + "}")
                        .requireOk("rollover of " + names.rolled());
                rolledShards[0] = next;
            }
        }
    }

    /**
     * Issue 27 item 2 on a real cluster: the node (other than the first, which kes's configured host
     * leads to) holding most primaries of the keyed routes is frozen for {@code seconds}. kes's bulks
     * for it hang and its full buffers queue for it; within about 6 s the cluster drops it and
     * promotes the replicas on the other nodes, kes reads the new primaries (every second in these
     * jobs) and forgets idle slots (every second too) while the frozen node still holds bulks of the
     * moved shards. A slot's later bulk sent to the new primary before those would take ids back to
     * older values. Then the node is resumed and rejoins.
     */
    private void stallANode(Names names, int seconds) throws Exception {
        Http http = servers.node.http();
        String keyed = names.deletes() + "," + names.upserts();
        Map<String, Long> primaries = primariesByNode(http, keyed);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (primaries == null && System.nanoTime() < deadline) { // the job writes them soon after it starts
            Thread.sleep(500);
            primaries = primariesByNode(http, keyed);
        }
        if (primaries == null) {
            out.println("  (node-stall: " + keyed + " not created yet, nothing stalled)");
            return;
        }
        Map<String, Long> before = primaries;
        SearchNode stalled = servers.nodes.stream()
                .skip(1)
                .max(Comparator.comparingLong(n -> before.getOrDefault(nodeName(n), 0L)))
                .orElseThrow();
        long held = before.getOrDefault(nodeName(stalled), 0L);
        stalled.pause();
        long moved;
        try {
            Thread.sleep(seconds * 1000L);
            Map<String, Long> after = primariesByNode(http, keyed);
            moved = after == null ? 0 : held - after.getOrDefault(nodeName(stalled), 0L);
        } finally {
            stalled.resume();
        }
        out.printf(
                "  (node-stall: %s held %d primaries of the keyed routes; %d had moved when it was resumed)%n",
                nodeName(stalled), held, moved);
        http.get("/_cluster/health?wait_for_nodes=" + servers.nodes.size() + "&timeout=90s")
                .requireOk("the stalled node rejoining");
    }

    /**
     * How many primaries of {@code indices} each node holds now, by node name (= its folder's name);
     * null while one of them does not exist.
     */
    private static Map<String, Long> primariesByNode(Http http, String indices) throws IOException {
        Http.Response shards = http.get("/_cat/shards/" + indices + "?format=json&h=prirep,state,node");
        if (shards.status() == 404) {
            return null;
        }
        shards.requireOk("listing the shards of " + indices);
        Map<String, Long> byNode = new HashMap<>();
        for (JsonNode shard : JSON.readTree(shards.body())) {
            if (shard.path("prirep").asText().equals("p")
                    && shard.path("state").asText().equals("STARTED")) {
                byNode.merge(shard.path("node").asText(), 1L, Long::sum);
            }
        }
        return byNode;
    }

    private static String nodeName(SearchNode node) {
        return node.nodeDir().getFileName().toString();
    }

    /**
     * One bulk of {@code index} is held inside Elasticsearch (it waits for a replica that one node
     * cannot assign) until kes gave up waiting for it ({@link JobFiles#SOCKET_TIMEOUT}) and had time
     * to send its documents again; then the replica is dropped and the held bulk is applied, late.
     * Unless kes waited for it to end before writing its ids again, they go back to older values.
     */
    private void holdABulk(String index, FaultProxy proxy) throws Exception {
        Http http = servers.node.http();
        int unassignable = servers.nodes.size(); // one copy more than there are nodes
        Http.Response replica = http.send(
                "PUT", "/" + index + "/_settings", "{\"index\":{\"number_of_replicas\":" + unassignable + "}}");
        if (replica.status() == 404) {
            out.println("  (held-bulk: " + index + " not created yet, nothing held)");
            return;
        }
        replica.requireOk("adding a replica to " + index);
        long before = proxy.stats().heldBulks();
        try {
            proxy.holdBulksInElasticsearch(1, Duration.ofSeconds(60), "\"_index\":\"" + index + "\"");
            long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
            while (proxy.stats().heldBulks() == before && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            if (proxy.stats().heldBulks() > before) {
                Thread.sleep(JobFiles.SOCKET_TIMEOUT.toMillis() + 2_000);
            }
        } finally {
            proxy.heal();
            http.send(
                            "PUT",
                            "/" + index + "/_settings",
                            "{\"index\":{\"number_of_replicas\":" + servers.replicas() + "}}")
                    .requireOk("dropping the replica of " + index);
        }
    }
}
