package io.kes.stack;

import java.nio.file.Path;
import java.util.Map;

/**
 * A real OpenSearch node from the integ-test-zip ({@code org.opensearch.distribution.integ-test-zip}):
 * no security plugin, so nothing to switch off.
 */
public final class OpenSearchNode extends SearchNode {

    private OpenSearchNode(Builder<OpenSearchNode> b) {
        super(b);
        if (securedRequested()) {
            throw new IllegalArgumentException(
                    "the stack secures only Elasticsearch: OpenSearch's integ-test-zip has no security"
                            + " plugin; drop secured() (bin/kes local up: --secure) or use --engine elasticsearch");
        }
    }

    public static Builder<OpenSearchNode> builder() {
        return new Builder<>(Engine.OPENSEARCH, OpenSearchNode::new);
    }

    /** 3.x when a JDK 21+ is found, else 2.19.x (which runs on JDK 17), saying so on stderr. */
    public static String defaultVersion(StackLayout layout) {
        if (JavaHomes.find(21).isPresent()) {
            return layout.opensearch3Version();
        }
        System.err.println("[kes] no JDK >= 21 found (OPENSEARCH_JAVA_HOME, JAVA_HOME, /usr/lib/jvm): OpenSearch "
                + layout.opensearch3Version() + " needs one; falling back to " + layout.opensearch2Version());
        return layout.opensearch2Version();
    }

    @Override
    public Engine engine() {
        return Engine.OPENSEARCH;
    }

    @Override
    public synchronized OpenSearchNode start() {
        super.start();
        return this;
    }

    @Override
    protected Path home(StackLayout layout) {
        return layout.distributionHome(Engine.OPENSEARCH, version());
    }

    /** 3.x needs 21+; 2.x runs on 11-23 (it relies on the SecurityManager that JDK 24 removed). */
    @Override
    protected Path javaHome(StackLayout layout) {
        boolean three = majorVersion() >= 3;
        return requireJdk(
                three ? 21 : 11, three ? Integer.MAX_VALUE : 23, ", or use OpenSearch " + layout.opensearch2Version());
    }

    @Override
    protected String envPrefix() {
        return "OPENSEARCH";
    }

    @Override
    protected Map<String, String> engineSettings() {
        return Map.of();
    }
}
