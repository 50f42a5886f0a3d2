package io.kes.connector.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.fence.Epochs;
import io.kes.connector.routing.IndexLayout;
import io.kes.connector.routing.PredictedShard;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SlotTableTest {

    private final IndexLayout layout = IndexLayout.of("logs", "uuid-1", new long[] {1, 1, 1, 1}, null);

    @Test
    void aWriteAPipelineMayMoveIsBufferedWithItsShardsOtherWritesSuchAsTheDeleteOfItsId() {
        SlotTable table = new SlotTable(true);
        List<Slot> sendFirst = new ArrayList<>();
        Slot delete = table.slotFor("logs", layout.shard(3), sendFirst);
        Slot throughPipeline = table.slotFor("logs", layout.mayMoveFrom(3), sendFirst);

        assertThat(throughPipeline)
                .as("index through a pipeline that may move it, then the delete of its id")
                .isSameAs(delete);
        assertThat(layout.mayMoveFrom(3).knowsShard())
                .as("fenced on every shard: the pipeline may move it")
                .isFalse();
        assertThat(sendFirst).isEmpty();
    }

    @Test
    void documentsOfNoPredictableShardShareTheTargetsAnyShardSlot() {
        SlotTable table = new SlotTable(true);
        List<Slot> sendFirst = new ArrayList<>();
        Slot any = table.slotFor("logs", layout.anyShard(), sendFirst);

        assertThat(any.shard).isEqualTo(PredictedShard.UNKNOWN_SHARD);
        assertThat(table.slotFor("logs", layout.anyShard(), sendFirst)).isSameAs(any);
        assertThat(table.slotFor("logs", layout.shard(0), sendFirst)).isNotSameAs(any);
    }

    @Test
    void aNewLayoutHandsBackTheOldLayoutsNonEmptySlotsToBeSentFirst() {
        SlotTable table = new SlotTable(true);
        List<Slot> sendFirst = new ArrayList<>();
        Slot old = table.slotFor("logs", layout.shard(2), sendFirst);
        old.body = new BulkBody(1024);
        table.nonEmpty.add(old);

        IndexLayout recreated = IndexLayout.of("logs", "uuid-2", new long[] {1, 1}, null);
        Slot fresh = table.slotFor("logs", recreated.shard(1), sendFirst);

        assertThat(sendFirst).containsExactly(old);
        assertThat(table.nonEmpty).doesNotContain(old);
        assertThat(fresh).isNotSameAs(old);
    }

    /**
     * Issue 27 item 2: a slot whose buffer is empty but whose bulks still wait in a node's queue
     * (a stalled node) was dropped at a layout change and by the periodic forget; the fresh slot's
     * next bulk could go to another node and overtake them. Such a slot is handed back too, so
     * the writer waits until its queued bulks are sent (their ids then held in flight).
     */
    @Test
    void aNewLayoutHandsBackOldSlotsWhoseBulksStillWaitInANodesQueue() {
        SlotTable table = new SlotTable(true);
        List<Slot> sendFirst = new ArrayList<>();
        Slot old = table.slotFor("logs", layout.shard(2), sendFirst);
        queueABulk(old);

        table.slotFor(
                "logs",
                IndexLayout.of("logs", "uuid-2", new long[] {1, 1}, null).shard(1),
                sendFirst);

        assertThat(sendFirst).containsExactly(old);
    }

    @Test
    void aTargetWhoseSlotStillHasBulksQueuedIsNotForgotten() {
        SlotTable table = new SlotTable(true);
        List<Slot> sendFirst = new ArrayList<>();
        Slot queued = table.slotFor("logs", layout.shard(2), sendFirst);
        queueABulk(queued);
        Slot idle = table.slotFor("other", layout.shard(1), sendFirst);

        table.forgetIdleTargets();

        assertThat(table.slotFor("logs", layout.shard(2), sendFirst))
                .as("kept: its next bulk must queue behind")
                .isSameAs(queued);
        assertThat(table.slotFor("other", layout.shard(1), sendFirst))
                .as("forgotten")
                .isNotSameAs(idle);
    }

    /** A bulk of {@code slot} waits in its node's queue. */
    private static void queueABulk(Slot slot) {
        new NodeBudgets(1, false, null)
                .enqueue(new BulkInFlight(new BulkBody(64), slot, new Epochs().bulkSent()), null);
    }
}
