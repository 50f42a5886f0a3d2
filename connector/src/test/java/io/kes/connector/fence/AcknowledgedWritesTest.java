package io.kes.connector.fence;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.cluster.IndexMetadata;
import io.kes.connector.routing.IndexLayout;
import io.kes.connector.routing.PredictedShard;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AcknowledgedWritesTest {

    private static final long UNSAID = -1; // a response that does not say under which term it applied the write

    private static IndexLayout layout(String index, String uuid, long... terms) {
        return IndexLayout.of(index, uuid, terms, null);
    }

    private static IndexMetadata now(String index, String uuid, long... terms) {
        return new IndexMetadata(
                index, uuid, terms.length, terms.length, 1, true, terms, IndexMetadata.DEFAULT_TRANSLOG_SYNC_INTERVAL);
    }

    @Test
    void unchangedPrimaryTermsPass() {
        IndexLayout logs = layout("logs", "u1", 1, 1, 1);
        AcknowledgedWrites acked = new AcknowledgedWrites();
        acked.record("logs", logs.shard(0), 1);
        acked.record("logs", logs.shard(2), 1);
        assertThat(acked.firstMovedShard(Map.of("logs", now("logs", "u1", 1, 1, 1))))
                .isNull();
    }

    @Test
    void aFailoverMidIntervalIsCaughtEvenWhenLaterWritesCarryTheNewTerm() {
        IndexLayout logs = layout("logs", "u1", 1, 1);
        AcknowledgedWrites acked = new AcknowledgedWrites();
        acked.record("logs", logs.shard(1), 1); // before the crash: may be lost
        acked.record("logs", logs.shard(1), 2); // after the restart
        assertThat(acked.firstMovedShard(Map.of("logs", now("logs", "u1", 2, 2))))
                .isEqualTo("logs[1] (written under primary term 1 or earlier, now 2)");
    }

    /**
     * Issue 27 item 4: the fence vouched for the predicted shard only; an index pipeline added or
     * changed since the layout was read may have put the write on another shard. Every shard of
     * a written index is fenced (an idle one is persisted already; a moved primary fails once).
     */
    @Test
    void everyShardOfAWrittenIndexIsFencedNotOnlyThePredictedOne() {
        IndexLayout logs = layout("logs", "u1", 3, 3);
        AcknowledgedWrites acked = new AcknowledgedWrites();
        acked.record("logs", logs.shard(0), 3);
        assertThat(acked.firstMovedShard(Map.of("logs", now("logs", "u1", 3, 3))))
                .isNull();
        assertThat(acked.baseline("logs", 1, now("logs", "u1", 3, 9)))
                .as("shard 1 may hold the write")
                .isEqualTo(3);
        assertThat(acked.firstMovedShard(Map.of("logs", now("logs", "u1", 3, 9))))
                .startsWith("logs[1]");
        assertThat(acked.baseline("other", 0, now("other", "u2", 1)))
                .as("an index not written: no wait")
                .isZero();
    }

    @Test
    void aCreateAnswered409IsAWriteTheFenceWaitsForAndHoldsAgainstTheTermBeforeItWasSent() {
        IndexLayout logs = layout("logs", "u1", 4, 4);
        AcknowledgedWrites acked = new AcknowledgedWrites();
        acked.record("logs", logs.shard(1), UNSAID);
        assertThat(acked.baseline("logs", 1, now("logs", "u1", 4, 4))).isEqualTo(4);
        assertThat(acked.firstMovedShard(Map.of("logs", now("logs", "u1", 4, 4))))
                .isNull();
        assertThat(acked.firstMovedShard(Map.of("logs", now("logs", "u1", 4, 5))))
                .startsWith("logs[1]");
    }

    @Test
    void aNoopUpdateAfterAFailoverDoesNotFailEveryLaterFence() {
        // the noop reports the stored document's old term 1; the layout read after the failover says 2
        IndexLayout logs = layout("logs", "u1", 2, 2);
        AcknowledgedWrites acked = new AcknowledgedWrites();
        acked.record("logs", logs.shard(0), UNSAID);
        assertThat(acked.firstMovedShard(Map.of("logs", now("logs", "u1", 2, 2))))
                .isNull();
    }

    @Test
    void writesOfUnknownShardAreHeldAgainstEachShardsOwnTerm() {
        IndexLayout logs = layout("logs", "u1", 3, 1); // shard 0 failed over once before, shard 1 never
        AcknowledgedWrites acked = new AcknowledgedWrites();
        acked.record("logs", logs.anyShard(), 1);
        assertThat(acked.firstMovedShard(Map.of("logs", now("logs", "u1", 3, 1))))
                .isNull();
        assertThat(acked.firstMovedShard(Map.of("logs", now("logs", "u1", 3, 2))))
                .startsWith("logs[1]");
        assertThat(acked.baseline("logs", 0, now("logs", "u1", 3, 1)))
                .as("every shard may hold them")
                .isPositive();
    }

    @Test
    void aPredictionMadeAgainstAnotherLayoutOfTheIndexIsFencedIndexWide() {
        // predicted for shard 2 of a 3-shard index; by the fence the index was re-created with 6 shards
        IndexLayout before = layout("logs", "u1", 1, 1, 1);
        AcknowledgedWrites acked = new AcknowledgedWrites();
        acked.record("logs", before.shard(2), 1);
        IndexMetadata recreated = now("logs", "u2", 1, 1, 1, 1, 1, 1);
        for (int shard = 0; shard < 6; shard++) {
            assertThat(acked.baseline("logs", shard, recreated))
                    .as("shard " + shard)
                    .isEqualTo(1);
        }
        assertThat(acked.firstMovedShard(Map.of("logs", now("logs", "u2", 1, 1, 1, 1, 1, 2))))
                .startsWith("logs[5]");
    }

    @Test
    void aWriteThatLandedInAnotherIndexThanPredictedIsFencedIndexWide() {
        // predicted for the alias's old write index; a rollover sent it to the new one
        IndexLayout old = layout("logs-000001", "u1", 1, 1);
        AcknowledgedWrites acked = new AcknowledgedWrites();
        acked.record("logs-000002", old.shard(0), 1);
        IndexMetadata rolled = now("logs-000002", "u2", 1, 1, 1);
        assertThat(acked.baseline("logs-000002", 2, rolled)).isEqualTo(1);
        assertThat(acked.firstMovedShard(Map.of("logs-000002", rolled))).isNull();
    }

    @Test
    void anIndexThatDisappearedFailsTheFence() {
        AcknowledgedWrites acked = new AcknowledgedWrites();
        acked.record("gone", layout("gone", "u1", 1).shard(0), 1);
        assertThat(acked.firstMovedShard(Map.of())).isEqualTo("gone (the index disappeared)");
    }

    @Test
    void clearForgetsEverything() {
        AcknowledgedWrites acked = new AcknowledgedWrites();
        acked.record("logs", PredictedShard.UNKNOWN, 1);
        acked.clear();
        assertThat(acked.isEmpty()).isTrue();
        assertThat(acked.indices()).isEmpty();
    }

    @Test
    void mergingKeepsTheLowestTermPerShardAndUnknownShardWrites() {
        IndexLayout logs = layout("logs", "u1", 1, 1, 1, 1);
        AcknowledgedWrites older = new AcknowledgedWrites();
        older.record("logs", logs.shard(1), 1);
        AcknowledgedWrites newer = new AcknowledgedWrites();
        newer.record("logs", logs.shard(1), 2);
        newer.record("logs", logs.shard(3), 2);
        newer.record("other", PredictedShard.UNKNOWN, 4);

        older.addAll(newer);

        assertThat(older.indices()).containsExactly("logs", "other");
        assertThat(older.firstMovedShard(Map.of("logs", now("logs", "u1", 2, 2, 2, 2), "other", now("other", "u9", 4))))
                .isEqualTo("logs[1] (written under primary term 1 or earlier, now 2)");
        assertThat(older.firstMovedShard(Map.of("logs", now("logs", "u1", 1, 1, 1, 1), "other", now("other", "u9", 4))))
                .isNull();
        // Shard 3's later writes carry term 2, but every shard of a written index is fenced against
        // its layout's term too: the term-1 write predicted for shard 1 may sit on shard 3 (issue 27 item 4).
        assertThat(older.firstMovedShard(Map.of("logs", now("logs", "u1", 1, 1, 1, 2), "other", now("other", "u9", 4))))
                .startsWith("logs[3] (a shard of a written index");
    }

    /**
     * Issue 66 item 4: a document a pipeline moved to an index kes first learns of from that very
     * write is fenced against the index's layout read after its acknowledgement; a failover of its
     * shard within that round trip went unseen. The response says the term it was applied under,
     * not its shard: where no shard of the layout has that term, its shard's primary moved after
     * the write (it had that term then, and a term only grows), and the fence fails.
     */
    @Test
    void aMovedWriteWhoseTermNoShardOfTheLayoutReadAfterItHasIsHeldToThatTerm() {
        AcknowledgedWrites acked = new AcknowledgedWrites();
        acked.record("dst", layout("dst", "u1", 2).anyShard(), 1); // applied under term 1, read as 2

        assertThat(acked.firstMovedShard(Map.of("dst", now("dst", "u1", 2)))).startsWith("dst[0]");
    }

    /** Where some shard has the term, the write may sit there: each shard keeps its own baseline (unequal terms pass). */
    @Test
    void aMovedWriteWhoseTermAShardOfTheLayoutHasKeepsEachShardsOwnBaseline() {
        AcknowledgedWrites acked = new AcknowledgedWrites();
        acked.record("dst", layout("dst", "u1", 1, 3).anyShard(), 1);
        acked.record("dst", layout("dst", "u1", 1, 3).anyShard(), 3);
        assertThat(acked.firstMovedShard(Map.of("dst", now("dst", "u1", 1, 3)))).isNull();

        AcknowledgedWrites between = new AcknowledgedWrites();
        between.record("dst", layout("dst", "u1", 1, 3).anyShard(), 2); // only shard 1 can have moved from 2
        assertThat(between.firstMovedShard(Map.of("dst", now("dst", "u1", 1, 3))))
                .startsWith("dst[1]");
    }
}
