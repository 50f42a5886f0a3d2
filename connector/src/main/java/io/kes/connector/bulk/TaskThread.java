package io.kes.connector.bulk;

import java.util.function.LongSupplier;
import org.apache.flink.api.common.operators.ProcessingTimeService;

/**
 * The task thread's mailbox, its timers (milliseconds, {@link WriterTimers}) and its clock
 * (nanoseconds): one clock for every part of the writer, so that a unit test moves them all at once.
 */
record TaskThread(TaskMailbox mailbox, ProcessingTimeService time, LongSupplier nanoTime) {

    /** Stops the timers' thread, if they have one: none fires after the writer closed. */
    void close() {
        if (time instanceof WriterTimers own) {
            own.close();
        }
    }
}
