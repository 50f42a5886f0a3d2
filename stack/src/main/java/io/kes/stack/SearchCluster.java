package io.kes.stack;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Several search nodes (Elasticsearch or OpenSearch) forming one cluster on this machine (each its
 * own process, data and ports), for tests and the bench's multi-node scenario. Node names are the
 * node folders' names.
 */
public final class SearchCluster implements AutoCloseable {

    private final List<SearchNode> nodes;

    private SearchCluster(List<SearchNode> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    /**
     * Starts {@code count} nodes under {@code dir} (folders {@code <namePrefix>1..n}) and waits until
     * they formed a green cluster.
     *
     * @param version    the engine's version, null for the build's default
     * @param settings   added to every node's configuration (e.g. faster fault detection)
     * @param registered sees every node before it starts, so that a caller can stop it even when
     *                   starting the cluster fails
     */
    public static SearchCluster start(
            Engine engine,
            String name,
            int count,
            Path dir,
            String namePrefix,
            String heap,
            String version,
            Map<String, String> settings,
            Consumer<SearchNode> registered)
            throws Exception {
        int[] http = new int[count];
        int[] transport = new int[count];
        StringBuilder seeds = new StringBuilder();
        StringBuilder masters = new StringBuilder();
        for (int i = 0; i < count; i++) {
            http[i] = Ports.free();
            transport[i] = Ports.free();
            seeds.append(i == 0 ? "" : ",").append("127.0.0.1:").append(transport[i]);
            masters.append(i == 0 ? "" : ",").append(namePrefix).append(i + 1);
        }
        List<SearchNode> nodes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            SearchNode.Builder<? extends SearchNode> builder = engine.builder();
            settings.forEach(builder::setting);
            SearchNode node = builder.version(version)
                    .nodeDir(dir.resolve(namePrefix + (i + 1)).toAbsolutePath())
                    .ports(http[i], transport[i])
                    .heap(heap)
                    .setting("cluster.name", name)
                    // Elasticsearch 8+ names it multi-node; OpenSearch kept the older zen
                    .setting("discovery.type", engine == Engine.ELASTICSEARCH ? "multi-node" : "zen")
                    .setting("discovery.seed_hosts", seeds.toString())
                    // OpenSearch 2+ still reads the old name (deprecated in favour of initial_cluster_manager_nodes)
                    .setting("cluster.initial_master_nodes", masters.toString())
                    .build();
            nodes.add(node);
            registered.accept(node);
        }
        // Each start() waits for yellow, which needs a formed cluster: start them together.
        ExecutorService pool = Executors.newFixedThreadPool(count);
        try {
            List<Future<?>> starts = new ArrayList<>();
            for (SearchNode n : nodes) {
                starts.add(pool.submit(n::start));
            }
            for (Future<?> f : starts) {
                f.get(6, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdown();
        }
        SearchCluster cluster = new SearchCluster(nodes);
        cluster.http()
                .get("/_cluster/health?wait_for_nodes=" + count + "&wait_for_status=green&timeout=60s")
                .requireOk(count + "-node health");
        return cluster;
    }

    public List<SearchNode> nodes() {
        return nodes;
    }

    public List<String> urls() {
        return nodes.stream().map(SearchNode::url).toList();
    }

    /** The first node's HTTP API. */
    public Http http() {
        return nodes.get(0).http();
    }

    /** The node called {@code name} (its folder's name). */
    public SearchNode node(String name) {
        return nodes.stream()
                .filter(n -> n.nodeDir().getFileName().toString().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no node " + name + " in " + nodes));
    }

    @Override
    public void close() {
        for (SearchNode n : nodes) {
            n.stop();
        }
    }
}
