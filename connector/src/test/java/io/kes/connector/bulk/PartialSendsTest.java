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
    /** The slot's node as the writer sees it: idle (nothing of its in flight), or busy with or without room in its budget. */
    private final AtomicBoolean nodeIdle = new AtomicBoolean(true);

    private final AtomicBoolean nodeHasRoom = new AtomicBoolean(true);
    private final SlotBuffers.Room room = new SlotBuffers.Room() {
        @Override
        public boolean idle(Slot slot) {
            return nodeIdle.get();
        }

        @Override
        public boolean hasRoom(Slot slot) {
            return nodeHasRoom.get();
        }
    };
    /** Mails the writer posts to its own task thread, run when the test says (the task's mailbox loop). */
    private final List<Runnable> mails = new ArrayList<>();

    private final PartialSends partialSends = new PartialSends(
            time, mails::add, buffers, sender, room, new DepartureRule(5, 1_000), 1_000, sendWaiting::get);

    /**
     * Under full load a send waits (backpressure) most of the time. A check that found one waiting
     * used to look again every coalesce (5 ms): per writer a timer, a thread hop and a mail 200
     * times a second, 9% of the job's CPU at 8 writers, for nothing: nothing may leave before the
     * waiting send. It now looks again once, when the wait ends.
     */
    @Test
    void aCheckThatFindsASendWaitingLooksAgainWhenTheWaitEndsNotEveryCoalesce() throws Exception {
        partialSends.bufferStarted(buffers.add(DocumentOperation.index("logs", "a", "{}"), layout.shard(0), sender));
        sendWaiting.set(true);
        int timersBefore = time.registered;

        time.advanceTo(1_000);
        assertThat(time.registered - timersBefore)
                .as("timers registered during a one-second wait")
                .isZero();
        assertThat(sent).as("nothing passes the waiting send").isEmpty();

        sendWaiting.set(false);
        partialSends.sendsResumed();
        runMails();
        assertThat(sent).as("the put-off check sends the buffer").hasSize(1);
    }

    /**
     * Under full load the wait ends after almost every send. The put-off check went through a
     * processing-time timer due at once: a hop to Flink's timer thread and back, per send, 3% of
     * the client's CPU at 48 shards (the timer threads' share in the steady profile). It is a mail
     * to the task's own mailbox instead: the task thread is the one that posts it.
     */
    @Test
    void aPutOffCheckIsAMailToTheTaskItselfNotATimer() throws Exception {
        partialSends.bufferStarted(buffers.add(DocumentOperation.index("logs", "a", "{}"), layout.shard(0), sender));
        sendWaiting.set(true);
        time.advanceTo(5); // the coalesce timer finds the send waiting: the check is put off
        int timersBefore = time.registered;

        sendWaiting.set(false);
        partialSends.sendsResumed();
        assertThat(time.registered - timersBefore)
                .as("timers registered when the wait ended")
                .isZero();
        assertThat(mails).hasSize(1);
        assertThat(sent).as("nothing goes before the task runs its mail").isEmpty();

        runMails();
        assertThat(sent).as("the mail sends the buffer").hasSize(1);
    }

    /**
     * Under full load every node's budget is full most of the time, and a buffer starts after every
     * bulk cut. A timer per buffer (its coalesce, then its linger) fired only to find no room: about
     * 200 timers a second per writer, each a hop to Flink's timer thread and a mail back. A buffer
     * that cannot go at its deadline arms none: the end of one of the bulks that fill its node's
     * budget looks at it ({@link PartialSends#bulkEnded}).
     */
    @Test
    void aBufferWhoseNodeHasNoRoomArmsNoTimerAndGoesWhenABulkEnds() throws Exception {
        nodeIdle.set(false);
        nodeHasRoom.set(false);
        partialSends.bufferStarted(buffers.add(DocumentOperation.index("logs", "a", "{}"), layout.shard(0), sender));

        time.advanceTo(5_000);
        assertThat(time.registered)
                .as("timers armed for a buffer that cannot go")
                .isZero();
        assertThat(sent).isEmpty();

        nodeIdle.set(true);
        nodeHasRoom.set(true);
        partialSends.bulkEnded();
        assertThat(sent).as("the bulk's end sends the buffer").hasSize(1);
    }

    /** A node whose bulks hang (a stalled node) but whose budget has places: the buffer goes at the linger, no later. */
    @Test
    void aBufferWhoseNodeIsBusyButHasRoomGoesAtTheLinger() throws Exception {
        nodeIdle.set(false);
        partialSends.bufferStarted(buffers.add(DocumentOperation.index("logs", "a", "{}"), layout.shard(0), sender));

        time.advanceTo(999);
        assertThat(sent).isEmpty();
        time.advanceTo(1_000);
        assertThat(sent).hasSize(1);
        assertThat(time.registered).as("one timer, for the linger").isEqualTo(1);
    }

    /** A timer that finds the node gone busy meanwhile arms the next one only if the buffer can go then. */
    @Test
    void aCoalesceTimerThatFindsTheNodeFullArmsNoMore() throws Exception {
        partialSends.bufferStarted(buffers.add(DocumentOperation.index("logs", "a", "{}"), layout.shard(0), sender));
        nodeIdle.set(false);
        nodeHasRoom.set(false);

        time.advanceTo(5_000);
        assertThat(time.registered).as("the coalesce timer only").isEqualTo(1);
        assertThat(sent).isEmpty();
    }

    @Test
    void aWaitThatPutNoCheckOffPostsNothing() {
        partialSends.sendsResumed();
        assertThat(mails).isEmpty();
    }

    private void runMails() {
        while (!mails.isEmpty()) {
            mails.remove(0).run();
        }
    }

    @Test
    void withNoSendWaitingABufferGoesOnceItCoalesced() throws Exception {
        partialSends.bufferStarted(buffers.add(DocumentOperation.index("logs", "a", "{}"), layout.shard(0), sender));

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
