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
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Injects one fault of a plan and returns when it is over: a killed Elasticsearch is running
 * again, a paused one resumed (always, even on failure), a storm has passed, a killed job started
 * again with {@code --restore-latest}, a rescaled one checkpointed at its new parallelism.
 */
final class FaultInjector {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** How long a rescale waits for the restored job's first checkpoint at its new parallelism. */
    private static final Duration RESCALED_CHECKPOINT_WAIT = Duration.ofSeconds(90);
    /** Far below Flink's checkpoint timeout (10 min), which a stop that hangs runs into. */
    private static final Duration STOP_WITHIN = Duration.ofSeconds(60);

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
            case RESCALE -> rescale(job, fault.amount());
            case STOP_SAVEPOINT ->
                out.printf("  (stop with a savepoint: %s)%n", job.stopWithSavepointAndResume(STOP_WITHIN));
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
            case HELD_BULK -> holdABulk(names.deletes(), proxy, false);
            case PROXY_504 -> holdABulk(names.deletes(), proxy, true);
            case NODE_STALL -> stallANode(names, fault.amount());
            case ROLLOVER -> {
                int next = rolledShards[0] % 4 + 1; // 2 -> 3 -> 4 -> 1 -> 2: always a different shard count
                servers.node
                        .http()
                        .send(
                                "POST",
                                "/" + names.rolled() + "/_rollover",
                                "{\"settings\":" + ScheduleResources.indexSettings(next, servers.replicas()) + "}")
                        .requireOk("rollover of " + names.rolled());
                rolledShards[0] = next;
            }
        }
    }

    /**
     * Issue 37 item 7, as users scale a job: kill -9 of the job, restored with {@code
     * --restore-latest} at {@code parallelism} while records keep arriving. Returns once the job
     * completed a checkpoint at the new parallelism (up to 90 s), so that the next rescale, the way
     * back, restores a checkpoint this one took: a restore from 4 writers to 2, not from 2 to 2.
     */
    private void rescale(JobProcess job, int parallelism) throws InterruptedException {
        int from = job.parallelism();
        Instant gone = job.restartAt(parallelism);
        long deadline = System.nanoTime() + RESCALED_CHECKPOINT_WAIT.toNanos();
        while (job.newestCheckpoint().filter(t -> t.isAfter(gone)).isEmpty()) {
            if (!job.isAlive()) {
                out.printf(
                        "  (rescale: %d -> %d writers: the job exited with code %d before its first checkpoint; see %s)%n",
                        from, parallelism, job.exitValue(), job.log());
                return;
            }
            if (System.nanoTime() > deadline) {
                out.printf(
                        "  (rescale: %d -> %d writers: no checkpoint within %d s of the restore, went on)%n",
                        from, parallelism, RESCALED_CHECKPOINT_WAIT.toSeconds());
                return;
            }
            Thread.sleep(250);
        }
        out.printf(
                "  (rescale: %d -> %d writers, its first checkpoint %.1f s after the kill)%n",
                from, parallelism, Duration.between(gone, Instant.now()).toMillis() / 1000.0);
    }

    /**
     * Issue 27 item 2 on a real cluster: a node holding primaries of the keyed routes ({@link
     * #nodeToStall}) is frozen for {@code seconds}, once their replicas are started. kes's bulks
     * for it hang and its full buffers queue for it; within about 6 s the cluster drops it and
     * promotes the replicas on the other nodes, kes reads the new primaries (every second in these
     * jobs) and forgets idle slots (every second too) while the frozen node still holds bulks of the
     * moved shards. A slot's later bulk sent to the new primary before those would take ids back to
     * older values. Then the node is resumed and rejoins.
     */
    private void stallANode(Names names, int seconds) throws Exception {
        Http http = servers.node.http();
        String keyed = names.deletes() + "," + names.upserts();
        Map<String, String> before = primaryNodes(http, keyed);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (before == null && System.nanoTime() < deadline) { // the job writes them soon after it starts
            Thread.sleep(500);
            before = primaryNodes(http, keyed);
        }
        if (before == null) {
            out.println("  (node-stall: " + keyed + " not created yet, nothing stalled)");
            return;
        }
        // a replica still recovering cannot be promoted: the shard would go red, no primary would move
        // (not green within 30 s: stalled anyway, and the report says whether primaries moved)
        http.get("/_cluster/health/" + keyed + "?wait_for_status=green&timeout=30s");
        before = primaryNodes(http, keyed);
        if (before == null) {
            out.println("  (node-stall: " + keyed + " gone meanwhile, nothing stalled)");
            return;
        }
        Map<String, Long> held = new HashMap<>();
        before.values().forEach(node -> held.merge(node, 1L, Long::sum));
        String master = http.get("/_cat/master?h=node&local=true").body().trim();
        SearchNode stalled = nodeToStall(held, master);
        String name = nodeName(stalled);
        String reached = awaitKesBulksAt(http, name);
        stalled.pause();
        Map<String, String> after;
        try {
            Thread.sleep(seconds * 1000L);
            after = primaryNodes(http, keyed);
        } finally {
            stalled.resume();
        }
        Map<String, String> moved = new TreeMap<>();
        before.forEach((shard, node) -> {
            String now = after == null ? null : after.get(shard);
            if (node.equals(name) && now != null && !now.equals(name)) {
                moved.put(shard, now);
            }
        });
        out.printf(
                "  (node-stall: %s%s held %d primaries of the keyed routes; %s; moved while it was stopped: %s)%n",
                name,
                name.equals(master) ? " (the elected master)" : "",
                held.getOrDefault(name, 0L),
                reached,
                moved.isEmpty() ? "none" : moved);
        http.get("/_cluster/health?wait_for_nodes=" + servers.nodes.size() + "&timeout=90s")
                .requireOk("the stalled node rejoining");
    }

    /**
     * Waits (up to 15 s) until kes sends a bulk straight to {@code node}: only then can its bulks
     * hang there and its slots queue behind that node, the sequence the stall is for. kes learns
     * where the primaries are a refresh after it first writes an index, so a stall right after the
     * indices turned green would often find every bulk still going through the configured host.
     * Says what it saw, for the report.
     */
    private static String awaitKesBulksAt(Http http, String node) throws Exception {
        long before = bulkRequestsAnswered(http, node);
        if (before < 0) {
            return "bulks per node not counted here";
        }
        long start = System.nanoTime();
        long deadline = start + Duration.ofSeconds(15).toNanos();
        while (bulkRequestsAnswered(http, node) <= before) {
            if (System.nanoTime() > deadline) {
                return "no bulk of kes reached it within 15 s, stalled anyway";
            }
            Thread.sleep(100);
        }
        return "kes's bulks reached it after " + (System.nanoTime() - start) / 1_000_000 + " ms";
    }

    /** {@code _bulk} HTTP requests {@code node} has answered ({@code _nodes/stats/http} routes); -1 where not counted (OpenSearch). */
    private static long bulkRequestsAnswered(Http http, String node) throws IOException {
        JsonNode nodes = JSON.readTree(http.get("/_nodes/" + node + "/stats/http")
                        .requireOk("the http stats of " + node)
                        .body())
                .path("nodes");
        long total = -1;
        for (JsonNode n : nodes) {
            JsonNode routes = n.path("http").path("routes");
            if (routes.isMissingNode()) {
                continue;
            }
            total = Math.max(total, 0);
            for (String route : new String[] {"/_bulk", "/{index}/_bulk"}) {
                total += routes.path(route).path("requests").path("count").asLong();
            }
        }
        return total;
    }

    /**
     * Never the first node (kes's configured host, where the checks and the fence's reads go); one
     * holding keyed primaries; not the elected master when another one holds some too (a frozen
     * master costs an election and a publication timeout before the others can drop it, most of the
     * stall); then the one holding most.
     */
    private SearchNode nodeToStall(Map<String, Long> primariesHeld, String master) {
        return servers.nodes.stream()
                .skip(1)
                .max(Comparator.comparingInt((SearchNode n) -> primariesHeld.containsKey(nodeName(n)) ? 1 : 0)
                        .thenComparing(n -> !nodeName(n).equals(master))
                        .thenComparingLong(n -> primariesHeld.getOrDefault(nodeName(n), 0L)))
                .orElseThrow();
    }

    /**
     * Which node (by name, = its folder's name) holds the started primary of each shard of
     * {@code indices} ({@code "index[shard]"}), as the first node sees the cluster now (its local
     * state: a frozen master is not asked); null while one of them does not exist.
     */
    private static Map<String, String> primaryNodes(Http http, String indices) throws IOException {
        Http.Response state = http.get("/_cluster/state/routing_table,nodes/" + indices + "?local=true");
        if (state.status() == 404) {
            return null;
        }
        state.requireOk("reading the routing table of " + indices);
        JsonNode root = JSON.readTree(state.body());
        if (root.path("routing_table").path("indices").size() < indices.split(",").length) {
            return null;
        }
        Map<String, String> primaries = new HashMap<>();
        for (var index : root.path("routing_table").path("indices").properties()) {
            for (var shard : index.getValue().path("shards").properties()) {
                for (JsonNode copy : shard.getValue()) {
                    if (copy.path("primary").asBoolean()
                            && copy.path("state").asText().equals("STARTED")) {
                        String nodeName = root.path("nodes")
                                .path(copy.path("node").asText())
                                .path("name")
                                .asText("?");
                        primaries.put(index.getKey() + "[" + shard.getKey() + "]", nodeName);
                    }
                }
            }
        }
        return primaries;
    }

    private static String nodeName(SearchNode node) {
        return node.nodeDir().getFileName().toString();
    }

    /**
     * One bulk of {@code index} is held inside Elasticsearch (it waits for a replica that one node
     * cannot assign) until kes gave up waiting for it ({@link JobFiles#SOCKET_TIMEOUT}) and had time
     * to send its documents again; then the replica is dropped and the held bulk is applied, late.
     * Unless kes waited for it to end before writing its ids again, they go back to older values.
     * With {@code gatewayTimeout} the proxy answers it 504 before kes's own timeout, as a load
     * balancer whose read timeout ends first does: no answer from Elasticsearch either.
     */
    private void holdABulk(String index, FaultProxy proxy, boolean gatewayTimeout) throws Exception {
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
            if (gatewayTimeout) {
                proxy.answerHeldBulksWith(504, JobFiles.SOCKET_TIMEOUT.dividedBy(2));
            }
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
