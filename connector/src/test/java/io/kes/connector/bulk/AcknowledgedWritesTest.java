package io.kes.connector.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class AcknowledgedWritesTest {

    @Test
    void unchangedPrimaryTermsPass() {
        AcknowledgedWrites acked = new AcknowledgedWrites();
        acked.record("logs", 0, 1);
        acked.record("logs", 2, 1);
        assertThat(acked.firstMovedShard(Map.of("logs", new long[] {1, 1, 1}))).isNull();
    }

    @Test
    void aFailoverMidIntervalIsCaughtEvenWhenLaterWritesCarryTheNewTerm() {
        AcknowledgedWrites acked = new AcknowledgedWrites();
        acked.record("logs", 1, 1); // before the crash: may be lost
        acked.record("logs", 1, 2); // after the restart
        assertThat(acked.firstMovedShard(Map.of("logs", new long[] {2, 2})))
                .isEqualTo("logs[1] (acknowledged under primary term 1, now 2)");
    }

    @Test
    void shardsWithoutWritesMayChangeTerm() {
        AcknowledgedWrites acked = new AcknowledgedWrites();
        acked.record("logs", 0, 3);
        assertThat(acked.firstMovedShard(Map.of("logs", new long[] {3, 9}))).isNull();
    }

    @Test
    void writesOfUnknownShardAreComparedWithEveryShard() {
        AcknowledgedWrites acked = new AcknowledgedWrites();
        acked.record("logs", AcknowledgedWrites.UNKNOWN_SHARD, 1);
        assertThat(acked.firstMovedShard(Map.of("logs", new long[] {1, 1}))).isNull();
        assertThat(acked.firstMovedShard(Map.of("logs", new long[] {1, 2}))).startsWith("logs[1]");
    }

    @Test
    void anIndexThatDisappearedFailsTheFence() {
        AcknowledgedWrites acked = new AcknowledgedWrites();
        acked.record("gone", 0, 1);
        assertThat(acked.firstMovedShard(Map.of())).isEqualTo("gone (the index disappeared)");
    }

    @Test
    void clearForgetsEverything() {
        AcknowledgedWrites acked = new AcknowledgedWrites();
        acked.record("logs", 0, 1);
        acked.clear();
        assertThat(acked.isEmpty()).isTrue();
        assertThat(acked.indices()).isEmpty();
    }

    @Test
    void mergingKeepsTheLowestTermPerShardAndUnknownShardWrites() {
        AcknowledgedWrites older = new AcknowledgedWrites();
        older.record("logs", 1, 1);
        AcknowledgedWrites newer = new AcknowledgedWrites();
        newer.record("logs", 1, 2);
        newer.record("logs", 3, 2);
        newer.record("other", AcknowledgedWrites.UNKNOWN_SHARD, 4);

        older.addAll(newer);

        assertThat(older.indices()).containsExactly("logs", "other");
        assertThat(older.firstMovedShard(Map.of("logs", new long[] {2, 2, 2, 2}, "other", new long[] {4})))
                .isEqualTo("logs[1] (acknowledged under primary term 1, now 2)");
        assertThat(older.firstMovedShard(Map.of("logs", new long[] {1, 1, 1, 2}, "other", new long[] {4}))).isNull();
    }
}
