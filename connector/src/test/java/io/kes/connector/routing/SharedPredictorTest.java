package io.kes.connector.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.ElasticsearchSink;
import io.kes.connector.SinkSettings;
import org.junit.jupiter.api.Test;

/**
 * Keyed, the routers and writers of a sink in one JVM predict with one routing table: one metadata
 * client and read thread, every index read and calibrated once per JVM, and a writer resolves its
 * routers' predictions against the table they came from.
 */
class SharedPredictorTest {

    private static final SinkSettings SETTINGS =
            ElasticsearchSink.builder().setHosts("http://localhost:1").build().settings();

    @Test
    void theRoutersAndWritersOfOneAttemptShareOnePredictorUntilAllClosedIt() throws Exception {
        ShardPredictor router = ShardPredictor.openShared("sink/0", SETTINGS, "test-reads");
        ShardPredictor writer = ShardPredictor.openShared("sink/0", SETTINGS, "test-reads");
        assertThat(writer).isSameAs(router);

        router.close();
        assertThat(writer.metadataClient().isRunning())
                .as("the writer still uses it")
                .isTrue();
        writer.close();
        assertThat(writer.metadataClient().isRunning()).isFalse();

        ShardPredictor next = ShardPredictor.openShared("sink/0", SETTINGS, "test-reads");
        assertThat(next).as("closed by both: the next opener gets a new one").isNotSameAs(router);
        next.close();
    }

    /** A restarted writer reads every index anew: fenceAs counts on it to end a failover's loop in one restart. */
    @Test
    void anotherAttemptOrSinkGetsItsOwnPredictor() throws Exception {
        ShardPredictor first = ShardPredictor.openShared("sink/0", SETTINGS, "test-reads");
        ShardPredictor restarted = ShardPredictor.openShared("sink/1", SETTINGS, "test-reads");
        ShardPredictor otherSink = ShardPredictor.openShared("other/0", SETTINGS, "test-reads");
        assertThat(restarted).isNotSameAs(first);
        assertThat(otherSink).isNotSameAs(first);
        for (ShardPredictor p : new ShardPredictor[] {first, restarted, otherSink}) {
            p.close();
        }
    }
}
