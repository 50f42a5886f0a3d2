package io.kes.connector.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.cluster.IndexMetadata;
import org.junit.jupiter.api.Test;

/** When an index is calibrated again, and what a moved document does to its calibration. */
class CalibrationsTest {

    private static final long NOW = 1_000_000;
    private static final IndexRouting ROUTING = new IndexRouting("idx", 2, 2, 1, RoutingFunction.ROUTING_NUM_SHARDS);

    private static IndexMetadata index(String uuid) {
        return new IndexMetadata(
                "idx", uuid, 2, 2, 1, true, new long[] {1, 1}, IndexMetadata.DEFAULT_TRANSLOG_SYNC_INTERVAL);
    }

    @Test
    void anIndexNeverSeenOrReCreatedIsDueAndAnAnswerIsNeverCalibratedAgain() {
        Calibrations calibrations = new Calibrations();
        assertThat(calibrations.due(index("u1"), NOW)).isTrue();

        calibrations.install(index("u1"), IndexCalibrator.Outcome.routes(ROUTING), NOW);

        assertThat(calibrations.due(index("u1"), Long.MAX_VALUE - 1)).isFalse();
        assertThat(calibrations.due(index("u2"), NOW))
                .as("a re-created index (another uuid) is calibrated again")
                .isTrue();
    }

    @Test
    void anIndexWithoutRoutingOnlyBecauseAPipelineWasUnreadableIsCalibratedAgainSoon() {
        Calibrations calibrations = new Calibrations();
        calibrations.install(index("u1"), new IndexCalibrator.Outcome(null, "pipeline unreadable", true), NOW);

        assertThat(calibrations.due(index("u1"), NOW + Calibrations.UNREADABLE_RETRY_MILLIS - 1))
                .isFalse();
        assertThat(calibrations.due(index("u1"), NOW + Calibrations.UNREADABLE_RETRY_MILLIS))
                .isTrue();

        calibrations.install(index("u1"), IndexCalibrator.Outcome.unpredictable("time series"), NOW);
        assertThat(calibrations.due(index("u1"), Long.MAX_VALUE - 1))
                .as("a readable answer without routing stands")
                .isFalse();
    }

    @Test
    void aMovedDocumentEndsTheRoutingOfItsGenerationOnlyForGood() {
        Calibrations calibrations = new Calibrations();
        Calibrations.Calibration routed =
                calibrations.install(index("u1"), IndexCalibrator.Outcome.routes(ROUTING), NOW);

        assertThat(calibrations.dropRouting(new Object(), NOW))
                .as("another generation")
                .isFalse();
        assertThat(calibrations.dropRouting(routed, NOW)).isTrue();

        Calibrations.Calibration now = calibrations.of(index("u1"));
        assertThat(now).as("a new generation").isNotSameAs(routed);
        assertThat(now.routing).isNull();
        assertThat(calibrations.due(index("u1"), Long.MAX_VALUE - 1)).isFalse();
        assertThat(calibrations.dropRouting(now, NOW))
                .as("nothing left to drop")
                .isFalse();
    }

    @Test
    void calibrationsUnusedSinceTheCutoffAreForgotten() {
        Calibrations calibrations = new Calibrations();
        calibrations.install(index("u1"), IndexCalibrator.Outcome.routes(ROUTING), NOW);

        calibrations.forgetUnusedSince(NOW);
        assertThat(calibrations.indices()).containsExactly("idx");

        calibrations.forgetUnusedSince(NOW + 1);
        assertThat(calibrations.indices()).isEmpty();
    }
}
