package io.kes.stack;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/** An Elasticsearch {@link SearchCluster}, typed for callers that use Elasticsearch nodes (the bench). */
public final class ElasticsearchCluster implements AutoCloseable {

    private final SearchCluster cluster;

    private ElasticsearchCluster(SearchCluster cluster) {
        this.cluster = cluster;
    }

    /** See {@link SearchCluster#start}. */
    public static ElasticsearchCluster start(
            String name,
            int count,
            Path dir,
            String namePrefix,
            String heap,
            String version,
            Consumer<ElasticsearchNode> registered)
            throws Exception {
        return new ElasticsearchCluster(SearchCluster.start(
                Engine.ELASTICSEARCH,
                name,
                count,
                dir,
                namePrefix,
                heap,
                version,
                Map.of(),
                node -> registered.accept((ElasticsearchNode) node)));
    }

    public List<ElasticsearchNode> nodes() {
        return cluster.nodes().stream().map(ElasticsearchNode.class::cast).toList();
    }

    public List<String> urls() {
        return cluster.urls();
    }

    public Http http() {
        return cluster.http();
    }

    public ElasticsearchNode node(String name) {
        return (ElasticsearchNode) cluster.node(name);
    }

    @Override
    public void close() {
        cluster.close();
    }
}
