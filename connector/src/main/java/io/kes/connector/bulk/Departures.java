package io.kes.connector.bulk;

import io.kes.connector.DocumentOperation;
import io.kes.connector.SinkSettings;
import io.kes.connector.cluster.SentTo;
import io.kes.connector.routing.PredictedShard;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.http.HttpHost;

/**
 * The one owner of when a bulk leaves: documents go into their slot's buffer ({@link SlotBuffers}),
 * a buffer that must go is queued for its node ({@link NodeBudgets}), and a queued bulk goes out
 * once its node's budget has a free place and none of its ids has an earlier write in flight
 * ({@link InFlightIds}). A buffer that is not full goes when {@link DepartureRule} says so.
 *
 * <p>One loop decides, {@link #look()}: it sends what may go, asks the rule about every buffer that
 * fills, and arms one timer for the earliest moment one of them could go whatever happens meanwhile.
 * It runs when that timer fires and whenever a bulk is over (its node may have room now), on the
 * task thread that handles the answer: a timer per answer would cost a thread hop and a mail. While
 * a send waits (backpressure, an old layout's buffer that must be out first) the loop does not run:
 * sending from inside that wait could pass the waiting body, whose documents are older; it runs once
 * the wait ends, as a mail the task posts to itself (the waiting send is still on the stack).
 *
 * <p>From the moment a bulk went out its answers are {@link BulkLifecycle}'s, which tells this class
 * when the bulk is over ({@link #over}) and when ids were released ({@link #pump}).
 */
final class Departures {

    private final TaskThread task;
    private final SlotBuffers buffers;
    private final NodeBudgets budgets;
    private final InFlightIds ids;
    private final DepartureRule rule;
    private final BulkTransport transport;
    private final CheckpointDrain drain;
    private final BulkMetrics metrics;
    private final FirstFailure failure;
    private final long maxQueuedBytes;

    /** Bulks that went out and are not over: at close, their nodes may still run them. */
    private final Set<BulkInFlight> unfinished = Collections.newSetFromMap(new IdentityHashMap<>());

    /** Where the answers to the bulks sent go ({@link BulkLifecycle}). */
    private final BulkTransport.Outcomes outcomes;

    /** How many sends wait (backpressure, or an old layout's buffer that must leave first). */
    private int waitingSends;
    /** The loop found a send waiting and runs again once none does. */
    private boolean putOff;
    /** When the armed timer fires; {@link Long#MAX_VALUE}: none is armed. */
    private long armedAt = Long.MAX_VALUE;

    private boolean closed;

    Departures(
            SinkSettings settings,
            TaskThread task,
            BulkLifecycle.Parts parts,
            InFlightIds ids,
            FirstFailure failure,
            BulkTransport.Outcomes outcomes) {
        this.outcomes = outcomes;
        this.task = task;
        this.buffers = parts.buffers();
        this.budgets = parts.budgets();
        this.transport = parts.transport();
        this.drain = parts.drain();
        this.metrics = parts.metrics();
        this.ids = ids;
        this.failure = failure;
        this.maxQueuedBytes = settings.maxQueuedBytes();
        this.rule = new DepartureRule(
                settings.coalesce() == null ? -1 : settings.coalesce().toMillis(),
                settings.linger().toMillis());
    }

    /** Buffers the document, and sends what must go because of it (its old layout's buffers first). */
    void add(DocumentOperation op, PredictedShard prediction) throws InterruptedException {
        SlotBuffers.Added added = buffers.add(op, prediction);
        Slot started = added.started;
        if (!added.leaving.isEmpty()) {
            for (SlotBuffers.Leaving leaving : List.copyOf(added.leaving)) {
                queue(leaving);
            }
        }
        if (started != null && started.body != null) {
            buffers.opened(started, drain.bufferStarted());
            HttpHost node = transport.nodeOf(started);
            arm(rule.nextLook(
                    started, started.firstDocAtMillis, budgets.idle(started, node), budgets.hasRoom(started, node)));
        }
    }

    /** Sends every buffer now (no document follows: the end of the input, or a stop with a savepoint). */
    void sendAll() throws InterruptedException {
        for (SlotBuffers.Leaving leaving : buffers.takeAll()) {
            queue(leaving);
        }
    }

    /**
     * The loop: sends what may go, then every buffer the rule lets go now, oldest first; arms the
     * timer for the earliest moment one that stays could go.
     */
    void look() throws InterruptedException {
        if (closed) {
            return;
        }
        pump();
        if (failure.happened() || buffers.bufferedDocs() == 0) {
            return;
        }
        if (waitingSends > 0) {
            putOff = true;
            return;
        }
        long now = task.time().getCurrentProcessingTime();
        long next = Long.MAX_VALUE;
        for (Slot slot : buffers.filling()) {
            if (slot.body == null) {
                continue; // taken while an earlier one waited (backpressure)
            }
            HttpHost node = transport.nodeOf(slot);
            boolean idle = budgets.idle(slot, node);
            boolean room = budgets.hasRoom(slot, node);
            if (rule.decide(slot, now, idle, room) != DepartureRule.Why.STAYS) {
                queue(buffers.take(slot));
            } else {
                next = Math.min(next, rule.nextLook(slot, now, idle, room));
            }
        }
        arm(next);
    }

    /** A bulk is over: its place in its node's budget and in its epoch are free, and a buffer may go. */
    void over(BulkInFlight bulk) {
        unfinished.remove(bulk);
        budgets.done(bulk);
        drain.bulkDone(bulk.epoch);
        lookNow();
    }

    /**
     * Sends every queued bulk that may go now; after a failure, drops them instead (a restart
     * replays them).
     */
    void pump() {
        if (failure.happened()) {
            budgets.dropQueued().forEach(dropped -> drain.bulkDone(dropped.epoch));
            return;
        }
        BulkInFlight next;
        while ((next = budgets.poll(ids)) != null) {
            go(next);
        }
    }

    /** Sends the bulk's current body (its first attempt, a retry, or the next part of a split one). */
    void dispatch(BulkInFlight bulk) {
        bulk.sentTo = transport.dispatch(bulk, outcomes);
        bulk.sentNanos = task.nanoTime().getAsLong();
    }

    /** The nodes that may still run a bulk this writer sent and has no final answer for. */
    void addNodesOfUnfinished(Set<SentTo> nodes) {
        unfinished.stream().map(bulk -> bulk.sentTo).filter(Objects::nonNull).forEach(nodes::add);
    }

    /** No buffer is looked at any more. */
    void close() {
        closed = true;
    }

    private void go(BulkInFlight bulk) {
        ids.holdAll(bulk.body);
        bulk.sent = true;
        bulk.firstSentNanos = task.nanoTime().getAsLong();
        unfinished.add(bulk);
        dispatch(bulk);
    }

    /**
     * Queues a buffer for its node, in its buffer's epoch, and sends what may go. Waits (backpressure)
     * only while the queued bytes pass {@code bulk.max_queued_bytes}, or, for an old layout's
     * buffer, until it is sent.
     */
    private void queue(SlotBuffers.Leaving leaving) throws InterruptedException {
        Slot slot = leaving.slot();
        if (leaving.body() == null) {
            waitWhile(() -> slot.lane.queued() > 0); // its queued bulks out first: their ids then held
            return;
        }
        BulkBody body = leaving.body();
        metrics.docsPerBulk.update(body.itemCount());
        metrics.shardsPerBulk.update(body.distinctShards());
        BulkInFlight bulk = new BulkInFlight(body, slot, drain.bulkQueued(leaving.epoch()));
        budgets.enqueue(bulk, transport.nodeOf(slot));
        pump();
        waitWhile(() -> leaving.beforeAnyLater() ? !bulk.sent : budgets.queuedBytes() > maxQueuedBytes);
    }

    /** Runs the task's mails (answers, timers) while {@code waiting} holds; rethrows a failure meanwhile. */
    private void waitWhile(BooleanSupplier waiting) throws InterruptedException {
        waitingSends++;
        try {
            while (waiting.getAsBoolean()) {
                task.mailbox().yield();
                failure.rethrow();
            }
        } finally {
            if (--waitingSends == 0 && putOff) {
                putOff = false;
                task.mailbox().run(this::look, "kes: the departures' look, put off while a send waited");
            }
        }
    }

    private void lookNow() {
        try {
            look();
        } catch (InterruptedException cancelled) {
            Thread.currentThread().interrupt(); // the task is being cancelled: nothing more goes out
        }
    }

    private void arm(long at) {
        if (!closed && at < armedAt) {
            armedAt = at;
            ProcessingTimeService time = task.time();
            time.registerTimer(at, this::fire);
        }
    }

    private void fire(long at) throws InterruptedException {
        if (at >= armedAt) {
            armedAt = Long.MAX_VALUE;
        }
        look();
    }
}
