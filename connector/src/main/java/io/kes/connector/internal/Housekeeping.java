package io.kes.connector.internal;

import org.apache.flink.annotation.Internal;

/**
 * How often the writers tidy up: forget slots and node budgets nothing used for a while (date-named
 * indices come and go, pod addresses change), and read again which node holds each primary. A job
 * that runs for days needs neither often. The torture suite makes both frequent, through system
 * properties on the job's JVM, so that its seconds-long faults cross them: a node stalled across a
 * forget and a primary move (issue 27 item 2). Not a user option: nothing a user sees gets better
 * when these change.
 */
@Internal
public final class Housekeeping {

    /** Every so often at a checkpoint, the writers forget idle slots and idle nodes' budgets. */
    public static final long FORGET_IDLE_TARGETS_MILLIS = millis("kes.internal.forget-idle-targets-ms", 10 * 60_000);

    /** How often each writer reads again which node holds each primary it writes to. */
    public static final long PRIMARY_REFRESH_MILLIS = millis("kes.internal.primary-refresh-ms", 30_000);

    private Housekeeping() {}

    private static long millis(String property, long defaultMillis) {
        long value = Long.getLong(property, defaultMillis);
        if (value <= 0) {
            throw new IllegalArgumentException(property + " must be a positive number of milliseconds, not " + value);
        }
        return value;
    }
}
