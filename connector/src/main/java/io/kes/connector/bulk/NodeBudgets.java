package io.kes.connector.bulk;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.http.HttpHost;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One in-flight budget and one send queue per node that bulks go to, so that a node that stalls
 * (a GC pause, a full write queue, a frozen process) holds only its own share: its bulks hang and
 * its full buffers wait in its queue, while the bulks for the other nodes go on. Before, one limit
 * per writer meant that a stalled node's hanging bulks soon held every permit and the writer
 * blocked, starving the healthy nodes too.
 *
 * <p>A bulk whose node is not known (no primary located yet, primary-node routing off, a mixed
 * bulk, a document of unknown shard) goes to the configured hosts, round robin; those bulks share
 * one budget of their own, keyed {@code null}: they wait on no particular node, so they take no
 * node's share, and with routing off every bulk is there, which is exactly the one limit per writer
 * of before. With one configured host the budget is that host's, which is then the node they reach.
 *
 * <p>Order: each queue is first in, first out, and a queue's head goes out only when none of its
 * ids still has an earlier write in flight (the writer's check). A slot's buffers stay in the queue
 * of its first queued buffer while any of them waits, even when its primary moved meanwhile, so
 * that a slot's bulks never overtake each other. Queued bytes count against a bound the writer
 * blocks on (backpressure). Task thread only.
 */
final class NodeBudgets {

    private static final Logger LOG = LoggerFactory.getLogger(NodeBudgets.class);

    /** What the bulks' owner ({@link BulkLifecycle}) does when a queue's head may go. */
    interface Dispatch {
        /** Whether the bulk may go now (none of its ids has an earlier write in flight). */
        boolean mayGo(BulkInFlight bulk);

        /** Sends the bulk, which takes a place in {@code budget} until {@link #done}. */
        void go(BulkInFlight bulk, Budget budget);
    }

    /** One node's (or the configured hosts') in-flight budget and queue. */
    static final class Budget {
        final HttpHost node;
        final ArrayDeque<BulkInFlight> queue = new ArrayDeque<>();
        /** Null: a fixed limit of {@link #ceiling}. */
        final AdaptiveConcurrency adaptive;

        final int ceiling;
        int inFlight;

        Budget(HttpHost node, int ceiling, boolean adaptive) {
            this.node = node;
            this.ceiling = ceiling;
            this.adaptive = adaptive ? new AdaptiveConcurrency(ceiling) : null;
        }

        int limit() {
            return adaptive == null ? ceiling : adaptive.limit();
        }

        @Override
        public String toString() {
            return (node == null ? "configured hosts" : node.toHostString()) + ": " + inFlight + " in flight of "
                    + limit() + ", " + queue.size() + " queued";
        }
    }

    private final int maxInFlight;
    private final boolean adaptive;
    private final HttpHost unknownNode;
    private final Map<HttpHost, Budget> byNode = new HashMap<>();
    /*
     * Volatile: the metrics reporter's thread reads them (gauges); only the task thread writes.
     * Nothing that thread reads iterates the per-node map, which the task thread changes.
     */
    private volatile long queuedBytes;
    private volatile int queuedBulks;
    private volatile int inFlight;
    private volatile long cuts;
    private volatile long behindMovedPrimary;

    /**
     * @param soleConfiguredHost the configured host when there is one, else null: where bulks of
     *                           unknown node go
     */
    NodeBudgets(int maxInFlight, boolean adaptive, HttpHost soleConfiguredHost) {
        this.maxInFlight = maxInFlight;
        this.adaptive = adaptive;
        this.unknownNode = soleConfiguredHost;
    }

    /**
     * Queues {@code bulk} for {@code node} (null: not known), or behind its slot's queued buffers.
     * When the slot's buffers wait in the configured hosts' queue (queued before its primary was
     * located) and its node is now known, they move to that node's queue first, in order: left
     * there, they would wait behind any bulk of that shared queue, one that hangs on a stalled node
     * included, while their own node is healthy.
     */
    void enqueue(BulkInFlight bulk, HttpHost node) {
        Slot slot = bulk.slot;
        Budget own =
                byNode.computeIfAbsent(node != null ? node : unknownNode, n -> new Budget(n, maxInFlight, adaptive));
        Budget budget = own;
        if (slot.queued > 0 && slot.queuedIn != own) {
            if (node != null && slot.queuedIn.node == unknownNode) {
                moveQueued(slot, slot.queuedIn, own);
            } else {
                budget = slot.queuedIn; // a moved primary: the slot's bulks must not overtake each other
                behindMovedPrimary++;
                if (!slot.behindMovedPrimary) {
                    slot.behindMovedPrimary = true;
                    LOG.info(
                            "The primary of {} moved to {} while {} of its bulks wait for {}: its bulks go there"
                                    + " until those are out, so that they stay in order.",
                            slot,
                            node != null ? node.toHostString() : "the configured hosts",
                            slot.queued,
                            budget.node != null ? budget.node.toHostString() : "the configured hosts");
                }
            }
        }
        slot.queued++;
        slot.queuedIn = budget;
        budget.queue.add(bulk);
        queuedBytes += bulk.body.heapBytes();
        queuedBulks++;
    }

    /** Sends every queue's head that may go, as long as its budget allows. */
    void pump(Dispatch dispatch) {
        for (Budget budget : byNode.values()) {
            BulkInFlight head;
            while (budget.inFlight < budget.limit() && (head = budget.queue.peek()) != null && dispatch.mayGo(head)) {
                dequeue(budget);
                head.slot.inFlight++;
                budget.inFlight++;
                inFlight++;
                if (budget.adaptive != null) {
                    budget.adaptive.started(budget.inFlight);
                }
                dispatch.go(head, budget);
            }
        }
    }

    /** An attempt of a sent bulk ended; see {@link AdaptiveConcurrency#ended}. */
    void attemptEnded(BulkInFlight bulk, long nowNanos, long rttNanos, boolean backPressure) {
        if (bulk.budget.adaptive != null) {
            long before = bulk.budget.adaptive.cuts();
            bulk.budget.adaptive.ended(nowNanos, rttNanos, backPressure);
            cuts += bulk.budget.adaptive.cuts() - before;
        }
    }

    /** A sent bulk is over: its budget has room again. */
    void done(BulkInFlight bulk) {
        bulk.slot.inFlight--;
        bulk.budget.inFlight--;
        inFlight--;
    }

    /**
     * Whether a slot's buffer that is not full may go ({@link PartialSends}), with {@code nodeOf}
     * saying where its next bulk would go: its node's budget is idle or has a free place.
     */
    SlotBuffers.Room room(Function<Slot, HttpHost> nodeOf) {
        return new SlotBuffers.Room() {
            @Override
            public boolean idle(Slot slot) {
                if (slot.queued > 0 || slot.inFlight > 0) {
                    return false;
                }
                Budget budget = existing(nodeOf.apply(slot));
                return budget == null || budget.inFlight + budget.queue.size() == 0;
            }

            @Override
            public boolean hasRoom(Slot slot) {
                Budget budget = slot.queued > 0 ? slot.queuedIn : existing(nodeOf.apply(slot));
                return budget == null || budget.inFlight + budget.queue.size() < budget.limit();
            }
        };
    }

    private Budget existing(HttpHost node) {
        return byNode.get(node != null ? node : unknownNode);
    }

    /** Empties every queue (the writer failed: nothing more is sent); returns what was queued. */
    List<BulkInFlight> dropQueued() {
        List<BulkInFlight> dropped = new ArrayList<>();
        for (Budget budget : byNode.values()) {
            while (!budget.queue.isEmpty()) {
                dropped.add(budget.queue.peek());
                dequeue(budget);
            }
        }
        return dropped;
    }

    long queuedBytes() {
        return queuedBytes;
    }

    int queuedBulks() {
        return queuedBulks;
    }

    int inFlight() {
        return inFlight;
    }

    /**
     * Forgets the budgets of nodes with nothing queued or in flight: pod addresses change with
     * every restart of a node, and a budget is made again at the next bulk for its node. Call now
     * and then, not per bulk.
     */
    void forgetIdleNodes() {
        byNode.values().removeIf(budget -> budget.queue.isEmpty() && budget.inFlight == 0);
    }

    /** Nodes with a budget now (tests of the bound). */
    int nodes() {
        return byNode.size();
    }

    /** Bulks queued behind their slot's earlier bulks for another node, its primary having moved. */
    long behindMovedPrimary() {
        return behindMovedPrimary;
    }

    /** The limits' cuts so far, all nodes (adaptive concurrency only). */
    long cuts() {
        return cuts;
    }

    /** The budget of {@code node} (null: the configured hosts'), if it has one (tests). */
    Budget budgetOf(HttpHost node) {
        return existing(node);
    }

    private static void moveQueued(Slot slot, Budget from, Budget to) {
        for (var it = from.queue.iterator(); it.hasNext(); ) {
            BulkInFlight queued = it.next();
            if (queued.slot == slot) {
                it.remove();
                to.queue.add(queued);
            }
        }
    }

    private void dequeue(Budget budget) {
        BulkInFlight bulk = budget.queue.poll();
        queuedBytes -= bulk.body.heapBytes();
        queuedBulks--;
        if (--bulk.slot.queued == 0) {
            bulk.slot.behindMovedPrimary = false;
        }
    }

    @Override
    public String toString() {
        return byNode.values().toString();
    }
}
