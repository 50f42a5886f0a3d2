package io.kes.stack;

/** The search engines the stack runs: both from integ-test-zips on Maven Central. */
public enum Engine {
    ELASTICSEARCH("Elasticsearch", "elasticsearch"),
    OPENSEARCH("OpenSearch", "opensearch");

    private final String displayName;
    private final String command;

    Engine(String displayName, String command) {
        this.displayName = displayName;
        this.command = command;
    }

    public String displayName() {
        return displayName;
    }

    /** The launcher in {@code bin/}, and the name of its YAML config and pid file. */
    public String command() {
        return command;
    }

    /** The newest line this machine can run (the newer lines need a JDK 21+). */
    public String defaultVersion(StackLayout layout) {
        return this == ELASTICSEARCH ? ElasticsearchNode.defaultVersion(layout) : OpenSearchNode.defaultVersion(layout);
    }

    public SearchNode.Builder<? extends SearchNode> builder() {
        return this == ELASTICSEARCH ? ElasticsearchNode.builder() : OpenSearchNode.builder();
    }

    /** {@code --engine elasticsearch|opensearch}. */
    public static Engine parse(String name) {
        for (Engine e : values()) {
            if (e.command.equalsIgnoreCase(name)) {
                return e;
            }
        }
        throw new IllegalArgumentException("unknown engine '" + name + "': use elasticsearch or opensearch");
    }
}
