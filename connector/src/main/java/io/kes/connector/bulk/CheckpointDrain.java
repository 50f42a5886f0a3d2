package io.kes.connector.bulk;

import io.kes.connector.fence.EpochFinisher;
import io.kes.connector.fence.Epochs;
import io.kes.connector.fence.Epochs.Epoch;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.LongSupplier;
import org.apache.flink.metrics.Histogram;

/**
 * The writer's side of a checkpoint, without stopping the writes. A buffer joins the {@link Epochs epoch}
 * current when it gets its first document, and the bulk it becomes stays in that epoch; a barrier
 * closes the current epoch but sends nothing: a buffer that is not full goes when it would have
 * without the barrier ({@link DepartureRule}: full, or its node has room, and {@code bulk.linger}
 * after its first document at the latest), with the documents that came after the barrier in it. An epoch drains once its buffers' bulks and every older epoch's are done, retries
 * included, so a checkpoint waits for exactly the documents before its barrier (and for those that
 * share their bulks) and never completes before an earlier one. A drained epoch goes to the
 * {@link EpochFinisher} (the fence, the failure handler's flush) on its own thread, or fails with
 * the writer's first failure: a checkpoint never completes over a lost write.
 *
 * <p>Task thread only, except the futures, which complete on the finisher's thread.
 */
final class CheckpointDrain implements AutoCloseable {

    private final Epochs epochs = new Epochs();
    private final EpochFinisher finisher;
    private final TaskMailbox mailbox;
    private final LongSupplier nanoTime;
    private final Histogram checkpointWaitMillis;
    /** The writer's first asynchronous failure, null while there is none. */
    private RuntimeException firstFailure;

    CheckpointDrain(
            EpochFinisher finisher, TaskMailbox mailbox, LongSupplier nanoTime, Histogram checkpointWaitMillis) {
        this.finisher = finisher;
        this.mailbox = mailbox;
        this.nanoTime = nanoTime;
        this.checkpointWaitMillis = checkpointWaitMillis;
    }

    /** The writer failed: every epoch that drains from now on fails with {@code first}. */
    void writerFailed(RuntimeException first) {
        if (firstFailure == null) {
            firstFailure = first;
        }
    }

    /** A buffer got its first document: the current epoch does not drain before the buffer's bulk is done. */
    Epoch bufferStarted() {
        return epochs.bulkSent();
    }

    /**
     * The epoch of a bulk queued now, for good (its retries and parts stay in it): its buffer's
     * ({@link #bufferStarted}), or the current one for a buffer that was queued as it started.
     */
    Epoch bulkQueued(Epoch buffers) {
        return buffers != null ? buffers : epochs.bulkSent();
    }

    /** A bulk of {@code epoch} is over (done, given up, or dropped after a failure). */
    void bulkDone(Epoch epoch) {
        finishDrained(epochs.bulkDone(epoch));
    }

    /**
     * A barrier: closes the current epoch. The future completes once every buffer started before it
     * went out in a bulk, every such bulk is done and the finisher made them durable; a failure of it
     * fails the task.
     */
    CompletableFuture<Void> closeEpoch() {
        Epoch closing = epochs.current();
        CompletableFuture<Void> durable = closing.durable;
        long barrierNanos = nanoTime.getAsLong();
        durable.whenComplete((ok, failure) -> {
            checkpointWaitMillis.update((nanoTime.getAsLong() - barrierNanos) / 1_000_000);
            if (failure != null) {
                // Writes that may be lost must be replayed now, not just keep their checkpoint from
                // completing: a declined checkpoint alone would, with tolerated checkpoint failures,
                // leave the job running without progress. A failed task restarts from the last
                // completed checkpoint, as a failed write does.
                mailbox.failTask(failure, "kes: writes of a checkpoint are not safe");
            }
        });
        finishDrained(epochs.closeCurrent());
        return durable;
    }

    /** The next barrier is the input's end: its fence flushes at once, and vouches for the epochs still waiting for a sync. */
    void endInput() {
        epochs.current().endsInput = true;
        finisher.endOfInput();
    }

    /** Waits for {@code durable} on the task thread, which runs responses and the finisher's wake-ups meanwhile; rethrows a failure. */
    void awaitOnTaskThread(CompletableFuture<Void> durable) throws Exception {
        while (!durable.isDone()) {
            mailbox.yield(); // responses and the finisher's wake-up arrive as mails
        }
        try {
            durable.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    private void finishDrained(List<Epoch> drained) {
        for (Epoch epoch : drained) {
            if (firstFailure != null) {
                epoch.durable.completeExceptionally(firstFailure);
            } else {
                finisher.finish(epoch);
            }
        }
    }

    @Override
    public void close() {
        finisher.close();
    }
}
