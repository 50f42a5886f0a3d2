package io.kes.connector.bulk;

import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.flink.api.common.operators.ProcessingTimeService;

/**
 * When a buffer that is not full goes: as soon as its node has room, not when a timer fires.
 *
 * <p>A buffer leaves early (after {@code bulk.coalesce}, a few milliseconds in which more documents
 * may join it) once its node has nothing of this writer's in flight or queued and its slot has no
 * bulk out; at the latest after {@code bulk.linger}, once its node's budget has a free place. While
 * its node is busy it keeps filling, so under load bulks fill by backpressure as they did when the
 * linger decided, and a stalled node's buffers grow instead of being cut into small bulks that
 * queue behind its hanging ones. Measured before (every buffer waited out the 1 s linger): at 3,000
 * records/s over 12 slot buffers each one filled at 250/s, so documents reached the index 0.8-0.9 s
 * after they were produced (p50), 2.4-2.7x later than a sink whose one mixed buffer filled in 0.67 s;
 * a 100 ms linger instead cut the stalled node's buffers into small bulks whose queue drained slowly
 * (p99 4.7 s). Why one eager bulk per node at a time: under load the node is rarely idle, so full
 * bulks (up to {@code bulk.max_in_flight}) keep the pipe full and early sends stay rare.
 *
 * <p>One processing-time timer for the next deadline (a buffer's coalesce or linger), and a check
 * at once whenever a bulk ends (its node may have room now); a check that finds a send waiting
 * (backpressure) is put off until that send is out, then runs as a mail the task posts to itself.
 * Task thread only.
 */
final class PartialSends {

    private final ProcessingTimeService time;
    /** Runs an action on this task thread once it is back in its mailbox loop (or yields). */
    private final Consumer<Runnable> ownMailbox;

    private final SlotBuffers buffers;
    private final SlotBuffers.Sender sender;
    private final SlotBuffers.Room room;
    private final DepartureRule rule;
    private final long lingerMillis;
    /** Whether a send waits in {@code yield()} right now (backpressure, an old layout's buffer). */
    private final BooleanSupplier sendWaiting;

    /** When the earliest registered timer fires; {@link Long#MAX_VALUE}: none. */
    private long armedAt = Long.MAX_VALUE;

    /** A check found a send waiting and was put off until no send waits ({@link #sendsResumed}). */
    private boolean putOff;

    private boolean closed;

    PartialSends(
            ProcessingTimeService time,
            Consumer<Runnable> ownMailbox,
            SlotBuffers buffers,
            SlotBuffers.Sender sender,
            SlotBuffers.Room room,
            DepartureRule rule,
            long lingerMillis,
            BooleanSupplier sendWaiting) {
        this.time = time;
        this.ownMailbox = ownMailbox;
        this.buffers = buffers;
        this.sender = sender;
        this.room = room;
        this.rule = rule;
        this.lingerMillis = lingerMillis;
        this.sendWaiting = sendWaiting;
    }

    /**
     * {@code slot}'s buffer started: look at it once it has coalesced, if its node is idle; at its
     * linger, if only its node's budget has room; else when a bulk ends ({@link #bulkEnded}).
     */
    void bufferStarted(Slot slot) {
        long next = rule.nextLook(slot, slot.firstDocAtMillis, room);
        if (next != Long.MAX_VALUE) {
            arm(next);
        }
    }

    /**
     * A checkpoint barrier: the buffers filling now go within {@code bulk.linger} whatever their
     * node's room ({@link SlotBuffers#barrier}), so that the checkpoint waits at most about that long
     * for documents that are not in a bulk yet.
     */
    void barrier() {
        long due = time.getCurrentProcessingTime() + lingerMillis;
        if (buffers.barrier(due)) {
            arm(due);
        }
    }

    /**
     * A bulk ended: its node (and its slot) may have room now for a buffer that waits. Looked at
     * at once, on the task thread that handles the answer: a timer would cost a thread hop and a
     * mail per bulk.
     */
    void bulkEnded() {
        if (buffers.bufferedDocs() == 0) {
            return;
        }
        checkNow();
    }

    private void checkNow() {
        try {
            fire(time.getCurrentProcessingTime());
        } catch (InterruptedException cancelled) {
            Thread.currentThread().interrupt(); // the task is being cancelled: nothing more goes out
        }
    }

    private void arm(long at) {
        if (!closed && at < armedAt) {
            armedAt = at;
            time.registerTimer(at, this::fire);
        }
    }

    private void fire(long now) throws InterruptedException {
        if (now >= armedAt) {
            armedAt = Long.MAX_VALUE;
        }
        if (closed) {
            return;
        }
        long current = Math.max(now, time.getCurrentProcessingTime());
        if (sendWaiting.getAsBoolean()) {
            // A send waits in yield() and this timer runs inside it: sending from here could pass
            // the waiting body, whose documents are older. Look again once no send waits: looking
            // again every coalesce instead was a timer, a thread hop and a mail every 5 ms per
            // writer for as long as backpressure lasted (under full load, all the time: the
            // profile's timer threads took 9% of the job's CPU at 8 writers).
            putOff = true;
            return;
        }
        long next = buffers.sendPartial(current, rule, room, sender);
        if (next != Long.MAX_VALUE) {
            arm(next);
        }
    }

    /**
     * No send waits any more: a check put off meanwhile runs next, from the mailbox. Not at once:
     * the send that waited is still on the stack. Under full load this is after almost every send,
     * so it is a mail the task posts to itself, not a timer due now (Flink's timer thread, a thread
     * hop and a mail back: the timer threads took 3% of the client's CPU at 48 shards).
     */
    void sendsResumed() {
        if (putOff) {
            putOff = false;
            ownMailbox.accept(this::checkNow);
        }
    }

    void close() {
        closed = true;
    }
}
