package io.kes.connector.bulk;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * blocks on (backpressure).
 *
 * <p>Nothing here sends: the departures' owner ({@link Departures}) polls the next bulk that may go
 * ({@link #poll}) and asks whether a slot's node has room ({@link #idle}, {@link #hasRoom}). Task
 * thread only.
 */
final class NodeBudgets {

    private static final Logger LOG = LoggerFactory.getLogger(NodeBudgets.class);

    /**
     * Where one slot's bulks wait and how many are out: the slot's next bulk queues behind its
     * queued ones, and a buffer that is not full waits while its slot has any. Written here only.
     */
    static final class Lane {
        private int queued;
        private Budget queuedIn;
        private int inFlight;
        /** Some of them wait for the node its primary left (logged once per such run). */
        private boolean behindMovedPrimary;

        /** This slot's bulks waiting in a node's queue. */
        int queued() {
            return queued;
        }
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
        Lane lane = slot.lane;
        Budget own =
                byNode.computeIfAbsent(node != null ? node : unknownNode, n -> new Budget(n, maxInFlight, adaptive));
        Budget budget = own;
        if (lane.queued > 0 && lane.queuedIn != own) {
            if (node != null && lane.queuedIn.node == unknownNode) {
                moveQueued(slot, lane.queuedIn, own);
            } else {
                budget = lane.queuedIn; // a moved primary: the slot's bulks must not overtake each other
                behindMovedPrimary++;
                if (!lane.behindMovedPrimary) {
                    lane.behindMovedPrimary = true;
                    LOG.info(
                            "The primary of {} moved to {} while {} of its bulks wait for {}: its bulks go there"
                                    + " until those are out, so that they stay in order.",
                            slot,
                            node != null ? node.toHostString() : "the configured hosts",
                            lane.queued,
                            budget.node != null ? budget.node.toHostString() : "the configured hosts");
                }
            }
        }
        lane.queued++;
        lane.queuedIn = budget;
        budget.queue.add(bulk);
        queuedBytes += bulk.body.heapBytes();
        queuedBulks++;
    }

    /**
     * The next queued bulk that may go now, which takes a place in its node's budget until
     * {@link #done}; null when none may: every queue is empty, its budget full, or its head holds
     * an id with an earlier write in {@code held} (that write must be applied first).
     */
    BulkInFlight poll(InFlightIds held) {
        for (Budget budget : byNode.values()) {
            BulkInFlight head = budget.queue.peek();
            if (head != null && budget.inFlight < budget.limit() && !held.anyHeld(head.body)) {
                dequeue(budget);
                head.slot.lane.inFlight++;
                head.budget = budget;
                budget.inFlight++;
                inFlight++;
                if (budget.adaptive != null) {
                    budget.adaptive.started(budget.inFlight);
                }
                return head;
            }
        }
        return null;
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
        bulk.slot.lane.inFlight--;
        bulk.budget.inFlight--;
        inFlight--;
    }

    /**
     * Neither the slot nor its node ({@code node}, where its next bulk would go) has a bulk of this
     * writer in flight or queued.
     */
    boolean idle(Slot slot, HttpHost node) {
        if (slot.lane.queued > 0 || slot.lane.inFlight > 0) {
            return false;
        }
        Budget budget = existing(node);
        return budget == null || budget.inFlight + budget.queue.size() == 0;
    }

    /** The budget the slot's next bulk would join (its queued bulks', or {@code node}'s) has a free place now. */
    boolean hasRoom(Slot slot, HttpHost node) {
        Budget budget = slot.lane.queued > 0 ? slot.lane.queuedIn : existing(node);
        return budget == null || budget.inFlight + budget.queue.size() < budget.limit();
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
        Lane lane = bulk.slot.lane;
        if (--lane.queued == 0) {
            lane.behindMovedPrimary = false;
        }
    }

    @Override
    public String toString() {
        return byNode.values().toString();
    }
}
