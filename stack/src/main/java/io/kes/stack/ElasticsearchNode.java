package io.kes.stack;

import java.nio.file.Path;
import java.util.Map;

/** A real Elasticsearch node from the integ-test-zip (transport-netty4, x-pack-core, x-pack-security, apm). */
public final class ElasticsearchNode extends SearchNode {

    private ElasticsearchNode(Builder<ElasticsearchNode> b) {
        super(b);
    }

    public static Builder<ElasticsearchNode> builder() {
        return new Builder<>(Engine.ELASTICSEARCH, ElasticsearchNode::new);
    }

    /**
     * The newest line this machine can run: 9.x when a JDK 21+ is found, else 8.19.x (which runs
     * on JDK 17), saying so on stderr.
     */
    public static String defaultVersion(StackLayout layout) {
        if (JavaHomes.find(21).isPresent()) {
            return layout.elasticsearch9Version();
        }
        System.err.println("[kes] no JDK >= 21 found (ES_JAVA_HOME, JAVA_HOME, /usr/lib/jvm): Elasticsearch "
                + layout.elasticsearch9Version() + " needs one; falling back to " + layout.elasticsearch8Version());
        return layout.elasticsearch8Version();
    }

    @Override
    public Engine engine() {
        return Engine.ELASTICSEARCH;
    }

    @Override
    public synchronized ElasticsearchNode start() {
        super.start();
        return this;
    }

    @Override
    protected Path home(StackLayout layout) {
        return layout.distributionHome(Engine.ELASTICSEARCH, version());
    }

    /** 9.x needs 21+; 8.19 runs on 17-23 (newer JDKs dropped the SecurityManager that 8.x relies on). */
    @Override
    protected Path javaHome(StackLayout layout) {
        boolean nine = majorVersion() >= 9;
        return requireJdk(nine ? 21 : 17, nine ? Integer.MAX_VALUE : 23, ", or use Elasticsearch " + layout.elasticsearch8Version());
    }

    @Override
    protected String envPrefix() {
        return "ES";
    }

    @Override
    protected Map<String, String> engineSettings() {
        return Map.of("xpack.security.enabled", "false");
    }
}
