package io.kes.connector.bulk;

import java.util.concurrent.CompletionException;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.util.function.ThrowingRunnable;

/**
 * The writer's way onto its task thread from other threads (the REST client's I/O threads, the
 * {@link EpochFinisher}, the {@link WriterTimers}). Once the task shuts down its mailbox refuses mail; by then nobody waits
 * for what the mail would have done, so a refused mail is dropped after close.
 */
final class TaskMailbox {

    private final MailboxExecutor mailbox;
    private volatile boolean closed;

    TaskMailbox(MailboxExecutor mailbox) {
        this.mailbox = mailbox;
    }

    /** Runs {@code action} on the task thread; what it throws fails the task. */
    void run(ThrowingRunnable<? extends Exception> action, String description) {
        try {
            mailbox.execute(action, description);
        } catch (RuntimeException rejected) {
            if (!closed) {
                throw rejected;
            }
        }
    }

    /** A no-op mail: a task thread waiting in {@link #yield()} looks at its futures again. */
    void wake() {
        try {
            mailbox.execute(() -> {}, "kes: wake up");
        } catch (RuntimeException mailboxClosed) {
            // the task is shutting down; nobody waits any more
        }
    }

    /** Fails the task with {@code failure}: Flink restarts it from the last completed checkpoint. */
    void failTask(Throwable failure, String description) {
        Throwable cause =
                failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        try {
            mailbox.execute(
                    () -> {
                        throw cause instanceof Exception e ? e : new IllegalStateException(cause);
                    },
                    description);
        } catch (RuntimeException mailboxClosed) {
            // the task is already going down
        }
    }

    /** Waits on the task thread, running mails (responses, wake-ups) meanwhile. */
    void yield() throws InterruptedException {
        mailbox.yield();
    }

    void close() {
        closed = true;
    }
}
