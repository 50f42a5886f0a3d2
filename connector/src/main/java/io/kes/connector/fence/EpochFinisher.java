package io.kes.connector.fence;

import io.kes.connector.FailureHandler;
import io.kes.connector.fence.Epochs.Epoch;
import io.kes.connector.internal.DaemonThreads;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Histogram;

/**
 * Finishes drained epochs on a thread of its own, one at a time in barrier order, so that the
 * task thread keeps writing meanwhile. For each epoch: with {@link io.kes.connector.Durability#CHECKPOINT_FENCE},
 * wait until the indices it wrote fsynced their translogs and compare primary terms ({@link CheckpointFence}); then
 * flush the failure handler, so the epoch's refused writes are safe too; then complete the epoch's
 * future, which is what its checkpoint waits for.
 *
 * <p>Writes that a failed fence could not vouch for stay in the set the next fence checks, so no
 * later checkpoint can complete over them either (when a job tolerates failed checkpoints).
 */
@Internal
public final class EpochFinisher implements AutoCloseable {

    private final CheckpointFence fence;
    private final FailureHandler failureHandler;
    private final Counter fenceFailures;
    private final Histogram fenceMillis;
    private final Runnable afterEachEpoch;
    private final ExecutorService thread;
    /** Acknowledged writes no fence has vouched for yet. Finisher thread only. */
    private final AcknowledgedWrites unfenced = new AcknowledgedWrites();
    /** Epochs whose fence stopped when the input ended: the end of input's fence finishes them. Finisher thread only. */
    private final List<Epoch> waitingForTheEnd = new ArrayList<>();

    /**
     * @param fence          null when the durability mode has none
     * @param afterEachEpoch runs on the finisher thread after every epoch (the writer wakes its task thread)
     */
    public EpochFinisher(
            CheckpointFence fence,
            FailureHandler failureHandler,
            Counter fenceFailures,
            Histogram fenceMillis,
            Runnable afterEachEpoch,
            String threadName) {
        this.fence = fence;
        this.failureHandler = failureHandler;
        this.fenceFailures = fenceFailures;
        this.fenceMillis = fenceMillis;
        this.afterEachEpoch = afterEachEpoch;
        this.thread = Executors.newSingleThreadExecutor(DaemonThreads.named(threadName));
    }

    /** Queues a drained epoch; its {@code durable} future completes when it is finished. */
    public void finish(Epoch epoch) {
        try {
            thread.execute(() -> {
                waitingForTheEnd.add(epoch);
                try {
                    if (makeDurable(epoch)) {
                        waitingForTheEnd.forEach(finished -> finished.durable.complete(null));
                        waitingForTheEnd.clear();
                    }
                } catch (Throwable t) {
                    waitingForTheEnd.forEach(failed -> failed.durable.completeExceptionally(t));
                    waitingForTheEnd.clear();
                } finally {
                    if (epoch.endsInput && fence != null) {
                        fence.close(); // its end is over, flushed or not: the other writers' ends no longer wait for it
                    }
                    afterEachEpoch.run();
                }
            });
        } catch (RejectedExecutionException closed) {
            epoch.durable.completeExceptionally(new IllegalStateException("the writer is closed", closed));
        }
    }

    /** False: the input ended before the fence vouched for the epoch's writes; they stay for the end of input's fence. */
    private boolean makeDurable(Epoch epoch) throws Exception {
        unfenced.addAll(epoch.acknowledged);
        if (fence != null && !unfenced.isEmpty()) {
            long started = System.nanoTime();
            try {
                if (!fence.check(unfenced, epoch.endsInput)) {
                    return false;
                }
            } catch (CheckpointFence.FenceException e) {
                fenceFailures.inc();
                throw e;
            } finally {
                fenceMillis.update((System.nanoTime() - started) / 1_000_000);
            }
        } else {
            unfenced.clear();
        }
        failureHandler.flush();
        return true;
    }

    /**
     * The input ended: a fence waiting for a translog sync stops, and the epochs before the end
     * complete with the end of input's fence, whose one flush vouches for them all
     * ({@link CheckpointFence#check}).
     */
    public void endOfInput() {
        if (fence != null) {
            fence.endOfInput();
        }
    }

    @Override
    public void close() {
        thread.shutdownNow(); // an epoch still waiting for the end of input never completes: its task is closing
        if (fence != null) {
            fence.close();
        }
    }
}
