package io.kes.connector.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.DocumentOperation;
import io.kes.connector.routing.IndexLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.junit.jupiter.api.Test;

class PartialSendsTest {

    private final IndexLayout layout = IndexLayout.of("logs", "u", new long[] {1}, null);
    private final FakeTime time = new FakeTime();
    private final List<BulkBody> sent = new ArrayList<>();
    private final SlotBuffers buffers = new SlotBuffers(true, 1_000, 1024 * 1024, 64L * 1024 * 1024, () -> 0L);
    private final AtomicBoolean sendWaiting = new AtomicBoolean();
    private final SlotBuffers.Sender sender = new SlotBuffers.Sender() {
        @Override
        public void send(Slot slot, BulkBody body, boolean beforeAnyLater) {
            sent.add(body);
        }

        @Override
        public void awaitQueued(Slot slot) {}
    };
    private final SlotBuffers.Room idleNode = new SlotBuffers.Room() {
        @Override
        public boolean idle(Slot slot) {
            return true;
        }

        @Override
        public boolean hasRoom(Slot slot) {
            return true;
        }
    };
    private final PartialSends partialSends =
            new PartialSends(time, buffers, sender, idleNode, 5, 1_000, sendWaiting::get);

    /**
     * Under full load a send waits (backpressure) most of the time. A check that found one waiting
     * used to look again every coalesce (5 ms): per writer a timer, a thread hop and a mail 200
     * times a second, 9% of the job's CPU at 8 writers, for nothing: nothing may leave before the
     * waiting send. It now looks again once, when the wait ends.
     */
    @Test
    void aCheckThatFindsASendWaitingLooksAgainWhenTheWaitEndsNotEveryCoalesce() throws Exception {
        buffers.add(DocumentOperation.index("logs", "a", "{}"), layout.shard(0), sender);
        partialSends.bufferStarted();
        sendWaiting.set(true);
        int timersBefore = time.registered;

        time.advanceTo(1_000);
        assertThat(time.registered - timersBefore)
                .as("timers registered during a one-second wait")
                .isZero();
        assertThat(sent).as("nothing passes the waiting send").isEmpty();

        sendWaiting.set(false);
        partialSends.sendsResumed();
        time.advanceTo(1_000);
        assertThat(sent).as("the put-off check sends the buffer").hasSize(1);
    }

    @Test
    void withNoSendWaitingABufferGoesOnceItCoalesced() throws Exception {
        buffers.add(DocumentOperation.index("logs", "a", "{}"), layout.shard(0), sender);
        partialSends.bufferStarted();

        time.advanceTo(4);
        assertThat(sent).isEmpty();
        time.advanceTo(5);
        assertThat(sent).hasSize(1);
    }

    private final class FakeTime implements ProcessingTimeService {
        private record Timer(long at, ProcessingTimeCallback callback) {}

        private final PriorityQueue<Timer> due = new PriorityQueue<>((a, b) -> Long.compare(a.at, b.at));
        private long now;
        int registered;

        @Override
        public long getCurrentProcessingTime() {
            return now;
        }

        @Override
        public ScheduledFuture<?> registerTimer(long timestamp, ProcessingTimeCallback callback) {
            registered++;
            due.add(new Timer(timestamp, callback));
            return null;
        }

        void advanceTo(long until) throws Exception {
            while (!due.isEmpty() && due.peek().at <= until) {
                Timer next = due.poll();
                now = Math.max(now, next.at);
                next.callback.onProcessingTime(next.at);
            }
            now = until;
        }
    }
}
