package io.kes.stack.junit;

import io.kes.stack.Engine;
import io.kes.stack.SearchNode;
import io.kes.stack.SharedServers;
import io.kes.stack.StackLayout;
import java.util.stream.Stream;

/**
 * One engine and version a parameterized test runs against; its node is the shared one (one per
 * version per test JVM, across test classes). Use as
 * {@code @ParameterizedTest(name = "{0}") @MethodSource("io.kes.stack.junit.SearchTarget#newestOrAll")}.
 */
public record SearchTarget(Engine engine, String version) {

    /**
     * The {@link #newest()} line of each engine, the quicker loop of a change; with
     * {@code -Dkes.search.targets=all} (the full suite, as CI runs it) all four: Elasticsearch 8.19
     * and 9.x, OpenSearch 2.19 and 3.x.
     */
    public static Stream<SearchTarget> newestOrAll() {
        if (!"all".equals(System.getProperty("kes.search.targets"))) {
            return newest();
        }
        StackLayout layout = StackLayout.fromBuild();
        return Stream.of(
                new SearchTarget(Engine.ELASTICSEARCH, layout.elasticsearch8Version()),
                new SearchTarget(Engine.ELASTICSEARCH, layout.elasticsearch9Version()),
                new SearchTarget(Engine.OPENSEARCH, layout.opensearch2Version()),
                new SearchTarget(Engine.OPENSEARCH, layout.opensearch3Version()));
    }

    /** The newest line of each engine: for tests too slow to run four times. */
    public static Stream<SearchTarget> newest() {
        StackLayout layout = StackLayout.fromBuild();
        return Stream.of(
                new SearchTarget(Engine.ELASTICSEARCH, layout.elasticsearch9Version()),
                new SearchTarget(Engine.OPENSEARCH, layout.opensearch3Version()));
    }

    /**
     * The targets with ingest processors: OpenSearch 3.x, to whose distribution the build adds the
     * ingest-common module (Elasticsearch publishes no jars of it; the integ-test-zips have none).
     */
    public static Stream<SearchTarget> withIngestProcessors() {
        return Stream.of(
                new SearchTarget(Engine.OPENSEARCH, StackLayout.fromBuild().opensearch3Version()));
    }

    public SearchNode node() {
        return SharedServers.node(engine, version);
    }

    @Override
    public String toString() {
        return engine.displayName() + " " + version;
    }
}
