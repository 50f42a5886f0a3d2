package io.kes.stack.junit;

import io.kes.stack.ElasticsearchNode;
import io.kes.stack.SharedServers;

/** Gives a test the shared real Elasticsearch node (default line) as an {@link ElasticsearchNode} parameter. */
public class ElasticsearchExtension extends SharedServerExtension<ElasticsearchNode> {

    public ElasticsearchExtension() {
        super(ElasticsearchNode.class, SharedServers::elasticsearch);
    }
}
