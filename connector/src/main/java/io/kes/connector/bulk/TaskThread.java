package io.kes.connector.bulk;

import java.util.function.LongSupplier;
import org.apache.flink.api.common.operators.ProcessingTimeService;

/**
 * The task thread's mailbox, its timers (milliseconds) and its clock (nanoseconds): one clock for
 * every part of the writer, so that a unit test moves them all at once.
 */
record TaskThread(TaskMailbox mailbox, ProcessingTimeService time, LongSupplier nanoTime) {}
