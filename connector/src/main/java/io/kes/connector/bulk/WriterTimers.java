package io.kes.connector.bulk;

import io.kes.connector.internal.DaemonThreads;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.operators.ProcessingTimeService;

/**
 * The writer's timers (a buffer's coalesce and linger, a retry's backoff, a poll for a bulk that got
 * no answer, a checkpoint's due buffers), run on the task thread through its mailbox, as Flink's own
 * processing-time timers are, but not Flink's: on a stop with a savepoint without drain
 * ({@code flink stop}) Flink quiesces an operator's processing-time service before the savepoint's
 * barrier reaches it, and calls no {@code finish()}; a timer then never fires, and a savepoint that
 * waits for a write behind one (a retry backing off after a 429, a bulk held in a node) waits for
 * the checkpoint timeout and fails. These fire until the writer closes. One thread per writer, as
 * Flink's service has per task; a timer that fires after the task's mailbox closed is dropped
 * ({@link TaskMailbox}).
 */
final class WriterTimers implements ProcessingTimeService, AutoCloseable {

    private final TaskMailbox mailbox;
    private final ScheduledThreadPoolExecutor executor;

    WriterTimers(TaskMailbox mailbox, String threadName) {
        this.mailbox = mailbox;
        this.executor = new ScheduledThreadPoolExecutor(1, DaemonThreads.named(threadName));
        executor.setRemoveOnCancelPolicy(true);
    }

    @Override
    public long getCurrentProcessingTime() {
        return System.currentTimeMillis();
    }

    /** Runs {@code target} on the task thread once the clock reaches {@code timestamp}, with that timestamp. */
    @Override
    public ScheduledFuture<?> registerTimer(long timestamp, ProcessingTimeCallback target) {
        long delay = Math.max(0, timestamp - getCurrentProcessingTime());
        return executor.schedule(
                () -> mailbox.run(() -> target.onProcessingTime(timestamp), "kes: a writer's timer"),
                delay,
                TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
