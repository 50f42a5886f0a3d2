package io.kes.connector.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.DocumentOperation;
import io.kes.connector.fence.Epochs;
import io.kes.connector.routing.PredictedShard;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.http.HttpHost;
import org.junit.jupiter.api.Test;

/** Per-node in-flight budgets and queues, polled as the departures poll them; what went out is recorded. */
class NodeBudgetsTest {

    private static final HttpHost A = new HttpHost("a", 9200, "http");
    private static final HttpHost B = new HttpHost("b", 9200, "http");
    private final Epochs epochs = new Epochs();
    private final List<BulkInFlight> sent = new ArrayList<>();
    /** Ids with an earlier write in flight: a batch holding one may not go. */
    private final InFlightIds held = new InFlightIds();

    /** Sends every bulk that may go, as {@link Departures#pump} does. */
    private void pump(NodeBudgets budgets) {
        BulkInFlight next;
        while ((next = budgets.poll(held)) != null) {
            next.sent = true;
            sent.add(next);
        }
    }

    private static BulkBody body(String... ids) {
        BulkBody body = new BulkBody(64);
        for (String id : ids) {
            body.add(
                    DocumentOperation.index("logs", id, "{}".getBytes(StandardCharsets.UTF_8)), PredictedShard.UNKNOWN);
        }
        return body;
    }

    private BulkInFlight batch(Slot slot, String... ids) {
        return new BulkInFlight(body(ids), slot, epochs.bulkSent());
    }

    @Test
    void aNodeWithNoRoomQueuesItsOwnBulksWhileTheOtherNodesBulksGo() {
        NodeBudgets budgets = new NodeBudgets(2, false, null);
        Slot a0 = new Slot("logs", 0);
        Slot a1 = new Slot("logs", 1);
        Slot b2 = new Slot("logs", 2);
        BulkInFlight first = batch(a0, "1");
        BulkInFlight second = batch(a1, "2");
        BulkInFlight third = batch(a0, "3");
        BulkInFlight forB = batch(b2, "4");
        budgets.enqueue(first, A);
        budgets.enqueue(second, A);
        budgets.enqueue(third, A);
        budgets.enqueue(forB, B);
        pump(budgets);

        assertThat(sent).containsExactlyInAnyOrder(first, second, forB);
        assertThat(budgets.queuedBulks()).isEqualTo(1);
        assertThat(budgets.queuedBytes()).isEqualTo(third.body.heapBytes());
        assertThat(budgets.inFlight()).isEqualTo(3);

        budgets.done(second);
        pump(budgets);
        assertThat(sent).endsWith(third);
        assertThat(budgets.queuedBytes()).isZero();
        assertThat(budgets.budgetOf(A).inFlight).isEqualTo(2);
    }

    @Test
    void aSlotsNextBufferQueuesBehindItsWaitingOneEvenWhenItsPrimaryMoved() {
        NodeBudgets budgets = new NodeBudgets(1, false, null);
        Slot slot = new Slot("logs", 0);
        BulkInFlight busy = batch(new Slot("logs", 1), "x");
        budgets.enqueue(busy, A);
        pump(budgets);
        BulkInFlight older = batch(slot, "k");
        budgets.enqueue(older, A); // waits: A has no room
        BulkInFlight newer = batch(slot, "k");
        budgets.enqueue(newer, B); // the primary moved to B meanwhile
        pump(budgets);

        assertThat(sent).containsExactly(busy);
        assertThat(budgets.budgetOf(A).queue).as("behind the older one, for A").containsExactly(older, newer);
        budgets.done(busy);
        pump(budgets);
        assertThat(sent).containsExactly(busy, older);
    }

    @Test
    void aHeadWhoseDocumentHasAnEarlierWriteInFlightHoldsOnlyItsOwnQueue() {
        NodeBudgets budgets = new NodeBudgets(4, false, null);
        BulkBody earlierK = body("k");
        held.holdAll(earlierK);
        BulkInFlight waiting = batch(new Slot("logs", 0), "k");
        BulkInFlight behind = batch(new Slot("logs", 1), "m");
        BulkInFlight elsewhere = batch(new Slot("logs", 2), "n");
        budgets.enqueue(waiting, A);
        budgets.enqueue(behind, A);
        budgets.enqueue(elsewhere, B);
        pump(budgets);
        assertThat(sent).containsExactly(elsewhere);

        held.releaseAll(earlierK); // the earlier write of k is done
        pump(budgets);
        assertThat(sent).containsExactly(elsewhere, waiting, behind);
    }

    @Test
    void bulksOfUnknownNodeShareOneBudgetOfTheirOwn() {
        NodeBudgets budgets = new NodeBudgets(1, false, null);
        BulkInFlight unknown1 = batch(new Slot(null, -1), "1");
        BulkInFlight unknown2 = batch(new Slot(null, -1), "2");
        BulkInFlight forA = batch(new Slot("logs", 0), "3");
        budgets.enqueue(unknown1, null);
        budgets.enqueue(unknown2, null);
        budgets.enqueue(forA, A);
        pump(budgets);
        assertThat(sent).containsExactlyInAnyOrder(unknown1, forA);
        assertThat(budgets.budgetOf(null).queue).containsExactly(unknown2);
    }

    @Test
    void withOneConfiguredHostBulksOfUnknownNodeCountOnThatNodesBudget() {
        NodeBudgets budgets = new NodeBudgets(1, false, A);
        BulkInFlight unknown = batch(new Slot(null, -1), "1");
        BulkInFlight forA = batch(new Slot("logs", 0), "2");
        budgets.enqueue(unknown, null);
        budgets.enqueue(forA, A);
        pump(budgets);
        assertThat(sent).containsExactly(unknown);
        assertThat(unknown.budget).isSameAs(budgets.budgetOf(A));
        assertThat(budgets.budgetOf(A).queue).containsExactly(forA);
    }

    @Test
    void afterAFailureWhatWaitsIsDroppedAndNoLongerCounts() {
        NodeBudgets budgets = new NodeBudgets(1, false, null);
        Slot slot = new Slot("logs", 0);
        budgets.enqueue(batch(slot, "1"), A);
        pump(budgets);
        BulkInFlight queued = batch(slot, "2");
        budgets.enqueue(queued, A);

        assertThat(budgets.dropQueued()).containsExactly(queued);
        assertThat(budgets.queuedBytes()).isZero();
        assertThat(slot.lane.queued()).isZero();
    }

    /** One bulk sent to A whose next window ends with a 429: A's adaptive limit is cut from 2 to 1. */
    private BulkInFlight sentAndCutOnce(NodeBudgets budgets) {
        BulkInFlight first = batch(new Slot("logs", 0), "1");
        budgets.enqueue(first, A);
        pump(budgets);
        budgets.attemptEnded(first, 50_000_000, 50_000_000, false); // the baseline
        budgets.attemptEnded(first, 200_000_000, -1, true); // a 429 ends the next window: limit 2 -> 1
        return first;
    }

    @Test
    void anAdaptiveBudgetSendsNoMoreThanItsCurrentLimit() {
        NodeBudgets budgets = new NodeBudgets(2, true, null);
        BulkInFlight first = sentAndCutOnce(budgets);
        budgets.enqueue(batch(new Slot("logs", 1), "2"), A);
        pump(budgets);
        assertThat(budgets.budgetOf(A).limit()).isEqualTo(1);
        assertThat(sent).containsExactly(first);
        assertThat(budgets.cuts()).isEqualTo(1);
    }

    @Test
    void buffersQueuedBeforeTheirPrimaryWasLocatedMoveToItsNodeOnceKnownSoAStalledNodeCannotHoldThem() {
        NodeBudgets budgets = new NodeBudgets(1, false, null);
        Slot onA = new Slot("logs", 0);
        Slot onB = new Slot("logs", 1);
        BulkInFlight stuck = batch(new Slot("logs", 2), "s"); // in flight through the configured hosts to a frozen node
        budgets.enqueue(stuck, null);
        pump(budgets);
        BulkInFlight earlyA = batch(onA, "a1");
        BulkInFlight earlyB = batch(onB, "b1");
        budgets.enqueue(earlyA, null);
        budgets.enqueue(earlyB, null);

        // the primaries are located: the slots' next buffers name their nodes
        BulkInFlight laterB = batch(onB, "b2");
        budgets.enqueue(laterB, B);
        pump(budgets);

        assertThat(sent)
                .as("B's buffers go to B in order, not behind the hanging bulk of the configured hosts")
                .containsExactly(stuck, earlyB);
        assertThat(budgets.budgetOf(B).queue).containsExactly(laterB);
        assertThat(budgets.budgetOf(null).queue).containsExactly(earlyA);
        assertThat(budgets.queuedBulks()).isEqualTo(2);
        assertThat(budgets.queuedBytes()).isEqualTo(earlyA.body.heapBytes() + laterB.body.heapBytes());

        budgets.done(earlyB);
        pump(budgets);
        assertThat(sent).endsWith(laterB);
    }

    /** Issue 27 item 12: pod addresses change with every node restart; budgets of gone nodes must not pile up. */
    @Test
    void budgetsOfNodesWithNothingQueuedOrInFlightAreForgotten() {
        NodeBudgets budgets = new NodeBudgets(1, false, null);
        BulkInFlight toA = batch(new Slot("logs", 0), "1");
        BulkInFlight toB = batch(new Slot("logs", 1), "2");
        budgets.enqueue(toA, A);
        budgets.enqueue(toB, B);
        pump(budgets);
        budgets.done(toA);

        budgets.forgetIdleNodes();

        assertThat(budgets.nodes()).as("B still has a bulk in flight").isEqualTo(1);
        assertThat(budgets.budgetOf(B)).isNotNull();
        budgets.done(toB);
        budgets.forgetIdleNodes();
        assertThat(budgets.nodes()).isZero();
    }

    /**
     * Issue 27 item 11: the concurrencyCuts gauge is read on the metrics reporter's thread, so it
     * reads a counter the task thread keeps, not the per-node map that thread changes (iterating
     * it there also lost the cuts of every node whose budget was forgotten).
     */
    @Test
    void theCutsCountedStayWhenTheirNodesBudgetIsForgotten() {
        NodeBudgets budgets = new NodeBudgets(2, true, null);
        budgets.done(sentAndCutOnce(budgets));

        budgets.forgetIdleNodes();

        assertThat(budgets.nodes()).isZero();
        assertThat(budgets.cuts()).isEqualTo(1);
    }
}
