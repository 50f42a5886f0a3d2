package io.kes.connector.bulk;

import java.util.function.BooleanSupplier;
import org.apache.flink.api.common.operators.ProcessingTimeService;

/**
 * Sends the buffers whose first document waited {@code bulk.linger}: one processing-time timer,
 * armed while any buffer holds documents. Task thread only.
 */
final class LingerTimer {

    private final ProcessingTimeService time;
    private final long lingerMillis;
    private final SlotBuffers buffers;
    private final SlotBuffers.Sender sender;
    /** Whether a send waits in {@code yield()} right now (backpressure, an old layout's buffer). */
    private final BooleanSupplier sendWaiting;

    private boolean armed;
    private boolean closed;

    LingerTimer(
            ProcessingTimeService time,
            long lingerMillis,
            SlotBuffers buffers,
            SlotBuffers.Sender sender,
            BooleanSupplier sendWaiting) {
        this.time = time;
        this.lingerMillis = lingerMillis;
        this.buffers = buffers;
        this.sender = sender;
        this.sendWaiting = sendWaiting;
    }

    void arm() {
        if (!armed && !closed) {
            armed = true;
            time.registerTimer(time.getCurrentProcessingTime() + lingerMillis, this::fire);
        }
    }

    private void fire(long now) throws InterruptedException {
        armed = false;
        if (closed) {
            return;
        }
        if (sendWaiting.getAsBoolean()) {
            // A send waits in yield() and this timer runs inside it: sending from here could pass
            // the waiting body, whose documents are older. Look again later.
            arm();
            return;
        }
        if (buffers.sendLingered(now, lingerMillis, sender)) {
            arm();
        }
    }

    void close() {
        closed = true;
    }
}
