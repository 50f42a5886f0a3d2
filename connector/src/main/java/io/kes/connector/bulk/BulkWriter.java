package io.kes.connector.bulk;

import io.kes.connector.DocumentOperation;
import io.kes.connector.Durability;
import io.kes.connector.FailureHandler;
import io.kes.connector.SinkSettings;
import io.kes.connector.cluster.RestClients;
import io.kes.connector.cluster.TargetNodeSelector;
import io.kes.connector.fence.CheckpointFence;
import io.kes.connector.fence.EpochFinisher;
import io.kes.connector.fence.Epochs;
import io.kes.connector.internal.Backoff;
import io.kes.connector.internal.Housekeeping;
import io.kes.connector.routing.PredictedShard;
import io.kes.connector.routing.ShardPredictor;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.metrics.MetricGroup;
import org.apache.http.HttpHost;
import org.elasticsearch.client.RestClient;

/**
 * Predicts each document's shard, buffers documents per (index, shard) slot and sends each full
 * buffer as one single-shard {@code _bulk}, asynchronously, with at most {@code bulk.max_in_flight}
 * bulks open per node ({@link NodeBudgets}: a full buffer whose node has no room waits in that
 * node's queue, and the writer goes on; it blocks only past {@code bulk.max_queued_bytes}).
 *
 * <p>Per-id order: Elasticsearch applies the writes of one document id in the order this writer
 * received them. An id is buffered in one slot at a time ({@link SlotTable}); a slot's bulks leave
 * in order ({@link NodeBudgets}; a target's old-layout buffers leave before any newer one is
 * buffered); a bulk waits while one of its ids has an earlier write in flight, retries included
 * ({@link InFlightIds}); a retried write takes every later write of its id in the same bulk with it. Together with the sink's
 * topology (the writer runs in its input's subtask: a Kafka partition's records stay in one writer,
 * in offset order) and the replay from the last checkpoint, every id ends with its last write.
 *
 * <p>Checkpoints do not stop the writes. At a barrier, {@link #checkpoint()} sends (queues) every
 * buffer and closes the current {@link Epochs epoch}, which a buffer joins when it is queued; the
 * future it returns completes once every bulk of that epoch (and of older ones) is done and, with
 * the checkpoint fence, Elasticsearch made them durable. The caller waits on that future off the task thread (the asynchronous part of the
 * checkpoint), and documents after the barrier keep flowing meanwhile. Only the end of a bounded
 * input waits on the task thread ({@link #drainAndMakeDurable()}).
 *
 * <p>The pieces: {@link SlotBuffers} fills the per-shard buffers and says when one is ready
 * ({@link PartialSends}: one that is not full as soon as its node has room);
 * {@link NodeBudgets} queues them per node and says which may go; a {@link BulkTransport}
 * ({@link BulkDispatcher}) sends a body to its node and hands the answer to {@link BulkAnswers},
 * which decides what each item's answer does ({@link ItemOutcomes}, 413 splits, the failure
 * handler); {@link Retries} sends failed items again after their backoff, a bulk without answer
 * only once Elasticsearch no longer runs it ({@link AbandonedBulks}); {@link CheckpointDrain}
 * puts each bulk in an epoch and finishes an epoch once its bulks are done; {@link WriteFailures}
 * words the errors. This class owns the task-thread state they share: the buffers, the ids in
 * flight, the node budgets and the first failure; and it sends, ends and gives up batches. The
 * transport, the predictions, the mailbox, the timers and the clock come from outside, so that
 * {@code BulkWriterTest} drives every order guarantee with fakes.
 *
 * <p>Threading: requests complete on the REST client's I/O threads, which only parse the response
 * and hand it to the task's mailbox; every state change (buffers, in-flight count, epochs,
 * retries, metrics, failure handling) happens on the task thread. Waiting (backpressure, end of
 * input) is {@link MailboxExecutor#yield()}, which runs those hand-overs meanwhile. The fence and
 * the failure handler's flush run on the {@link EpochFinisher}'s thread.
 *
 * <p>Failures: rejected (429) and unavailable (5xx, connection) writes are retried with backoff,
 * only the items that failed, for at most {@code retry.max_time}; then the job fails. A bulk that
 * got no answer at all goes out again only once Elasticsearch no longer runs it ({@link AbandonedBulks}):
 * applied late, it would take its ids back to older values. Writes that
 * can never succeed go to the {@link FailureHandler} at once. The first asynchronous failure is
 * kept and rethrown from {@link #write}, and fails every checkpoint still waiting, so a checkpoint
 * never completes over a lost write.
 */
final class BulkWriter implements AutoCloseable, SlotBuffers.Sender, NodeBudgets.Dispatch, BulkAnswers.Writer {

    private final SinkSettings settings;
    private final WriterRouting predictor;
    private final TaskMailbox mailbox;
    private final ProcessingTimeService time;
    private final LongSupplier nanoTime;
    private final FailureHandler failureHandler;
    private final BulkMetrics metrics;
    private final SlotBuffers buffers;
    private final PartialSends partialSends;
    private final BulkTransport dispatcher;
    private final InFlightIds inFlightIds = new InFlightIds();

    @VisibleForTesting
    final NodeBudgets budgets;

    private final Retries retries;
    private final CheckpointDrain drain;

    /** How many sends are waiting (backpressure, or an old layout's buffer that must leave first). */
    private int waitingSends;

    /** Batches that went out and are not over: at close, their nodes may still run them. */
    private final Set<Batch> unfinished = Collections.newSetFromMap(new IdentityHashMap<>());
    /** Nodes of bulks given up on without an answer: they may still run them. */
    private final Set<HttpHost> givenUpOn = new HashSet<>();

    private long lastForgetMillis;
    private RuntimeException asyncFailure;

    /**
     * The writer of one subtask, on the REST client: single-shard bulks through {@link BulkDispatcher}
     * and, with {@link Durability#CHECKPOINT_FENCE}, the checkpoint fence.
     *
     * @param client    built with {@code selector} as its node selector ({@link io.kes.connector.cluster.RestClients#create})
     * @param predictor predicts each document's shard; reads index metadata through its own client
     * @param failureHandler opened before and closed after the writer by its caller
     */
    static BulkWriter open(
            SinkSettings settings,
            RestClient client,
            TargetNodeSelector selector,
            ShardPredictor predictor,
            MailboxExecutor mailbox,
            ProcessingTimeService time,
            MetricGroup metricGroup,
            int subtaskIndex,
            FailureHandler failureHandler,
            String opaqueId)
            throws Exception {
        TaskMailbox taskMailbox = new TaskMailbox(mailbox);
        return new BulkWriter(
                settings,
                WriterRouting.of(predictor),
                metrics -> new BulkDispatcher(settings, client, selector, taskMailbox, metrics, subtaskIndex, opaqueId),
                taskMailbox,
                time,
                System::nanoTime,
                metricGroup,
                subtaskIndex,
                failureHandler,
                client);
    }

    /**
     * The parts a unit test replaces: the transport (built from the writer's metrics), predictions,
     * the mailbox, timers and the clock.
     *
     * @param fenceClient what the checkpoint fence asks, with {@link Durability#CHECKPOINT_FENCE}; with
     *                    any other durability a checkpoint waits for acknowledgements only and this may be null
     */
    BulkWriter(
            SinkSettings settings,
            WriterRouting predictor,
            Function<BulkMetrics, BulkTransport> transport,
            TaskMailbox mailbox,
            ProcessingTimeService time,
            LongSupplier nanoTime,
            MetricGroup metricGroup,
            int subtaskIndex,
            FailureHandler failureHandler,
            RestClient fenceClient)
            throws Exception {
        this.settings = settings;
        this.predictor = predictor;
        this.mailbox = mailbox;
        this.time = time;
        this.nanoTime = nanoTime;
        this.failureHandler = failureHandler;
        // retry.initial_backoff and retry.max_backoff pace the writes' retries and the fence's alike.
        Backoff backoff = new Backoff(settings.initialBackoff(), settings.maxBackoff());
        this.budgets = new NodeBudgets(
                settings.maxInFlight(),
                settings.adaptiveConcurrency(),
                settings.hosts().size() == 1 ? RestClients.hosts(settings)[0] : null);
        this.metrics = new BulkMetrics(metricGroup, this, budgets);
        this.buffers = new SlotBuffers(
                settings.shardGrouping(),
                settings.maxDocs(),
                settings.maxBytes(),
                settings.maxBufferedBytes(),
                time::getCurrentProcessingTime);
        this.dispatcher = transport.apply(metrics);
        this.partialSends = new PartialSends(
                time,
                buffers,
                this,
                budgets.room(dispatcher::nodeOf),
                settings.coalesce().toMillis(),
                settings.linger().toMillis(),
                () -> waitingSends > 0);
        this.retries = new Retries(
                settings.maxRetryTime(), backoff, time, nanoTime, dispatcher, inFlightIds, metrics, this::giveUp);
        dispatcher.outcomesTo(new BulkAnswers(
                nanoTime, metrics, budgets, inFlightIds, predictor, failureHandler, dispatcher, retries, this));
        CheckpointFence fence = settings.durability() == Durability.CHECKPOINT_FENCE
                ? new CheckpointFence(fenceClient, backoff, settings.maxRetryTime(), settings.fenceSyncWait())
                : null;
        this.drain = new CheckpointDrain(
                new EpochFinisher(
                        fence,
                        failureHandler,
                        metrics.fenceFailures,
                        metrics.fenceMillis,
                        mailbox::wake,
                        "kes-checkpoint-fence-" + subtaskIndex),
                mailbox,
                nanoTime,
                metrics.checkpointWaitMillis,
                () -> asyncFailure);
    }

    public void write(DocumentOperation op) throws InterruptedException {
        rethrowAsyncFailure();
        PredictedShard prediction = predictor.predict(op);
        if (!prediction.knowsShard()) {
            metrics.docsWithUnknownShard.inc();
        }
        if (buffers.add(op, prediction, this)) {
            partialSends.bufferStarted();
        }
    }

    /**
     * Sends a buffer: queues it for its node, in the current epoch, and sends what may go. It goes
     * out once its node's budget has room and none of its documents has an earlier write still in
     * flight (that one must be applied first, {@link InFlightIds}). Waits (backpressure) only while
     * the queued bytes pass {@code bulk.max_queued_bytes}, or until an old layout's buffer is out.
     */
    @Override
    public void send(Slot slot, BulkBody body, boolean beforeAnyLater) throws InterruptedException {
        metrics.docsPerBulk.update(body.itemCount());
        metrics.shardsPerBulk.update(body.distinctShards());
        Batch batch = new Batch(body, slot, drain.bulkQueued());
        budgets.enqueue(batch, dispatcher.nodeOf(slot));
        pump();
        waitingSends++;
        try {
            while (beforeAnyLater ? !batch.sent : budgets.queuedBytes() > settings.maxQueuedBytes()) {
                mailbox.yield();
                rethrowAsyncFailure();
            }
        } finally {
            waitingSends--;
        }
    }

    @Override
    public void awaitQueued(Slot slot) throws InterruptedException {
        waitingSends++;
        try {
            while (slot.queued > 0) {
                mailbox.yield();
                rethrowAsyncFailure();
            }
        } finally {
            waitingSends--;
        }
    }

    /** Sends what may go now; after a failure, drops what waits instead (a restart replays it). */
    @Override
    public void pump() {
        if (asyncFailure == null) {
            budgets.pump(this);
            return;
        }
        for (Batch dropped : budgets.dropQueued()) {
            drain.bulkDone(dropped.epoch);
        }
    }

    @Override
    public boolean mayGo(Batch batch) {
        return !inFlightIds.anyHeld(batch.body);
    }

    @Override
    public void go(Batch batch) {
        inFlightIds.holdAll(batch.body);
        batch.sent = true;
        batch.firstSentNanos = nanoTime.getAsLong();
        unfinished.add(batch);
        dispatcher.dispatch(batch);
    }

    @Override
    public void done(Batch batch) {
        unfinished.remove(batch);
        budgets.done(batch);
        drain.bulkDone(batch.epoch);
        pump(); // room in its node's budget
        if (asyncFailure == null) {
            partialSends.bulkEnded(); // a buffer that waited for that room may go
        }
    }

    @Override
    public void giveUp(Batch batch, RuntimeException failure) {
        fail(failure);
        if (batch.sentTo != null) {
            givenUpOn.add(batch.sentTo); // perhaps it got no answer: the node may still apply it
        }
        inFlightIds.releaseAll(batch.body);
        batch.laterParts.forEach(inFlightIds::releaseAll);
        batch.laterParts.clear();
        done(batch);
    }

    @Override
    public void fail(RuntimeException failure) {
        if (asyncFailure == null) {
            asyncFailure = failure;
        } else if (asyncFailure != failure) {
            asyncFailure.addSuppressed(failure);
        }
    }

    private void rethrowAsyncFailure() {
        if (asyncFailure != null) {
            throw asyncFailure;
        }
    }

    /**
     * A checkpoint barrier: sends every buffer and closes the current epoch. Returns at once (after
     * backpressure, past {@code bulk.max_queued_bytes}); the future completes when every bulk sent
     * or queued before this barrier is done, retries included, and, with {@link Durability#CHECKPOINT_FENCE},
     * Elasticsearch made them durable with no primary failover in between. It fails with the first
     * write failure, or the fence's. Wait on it off the task thread.
     */
    public CompletableFuture<Void> checkpoint() throws InterruptedException {
        rethrowAsyncFailure();
        buffers.sendAll(this);
        long now = time.getCurrentProcessingTime();
        if (now - lastForgetMillis > Housekeeping.FORGET_IDLE_TARGETS_MILLIS) {
            lastForgetMillis = now;
            buffers.forgetIdleTargets();
            budgets.forgetIdleNodes();
        }
        return drain.closeEpoch();
    }

    /**
     * The end of a bounded input: {@link #checkpoint()}, then waits for it on the task thread, so
     * the task only finishes with every write acknowledged and durable (flushed at once: no later
     * write will share the translog's next sync, so waiting for it would only delay the job's end).
     * Rethrows a failure.
     */
    public void drainAndMakeDurable() throws Exception {
        drain.endInput();
        drain.awaitOnTaskThread(checkpoint());
    }

    /**
     * The nodes that may still run one of this writer's bulks: those it sent and has no final
     * answer for, and those it gave up on. Bulks sent to the configured hosts are not named: the
     * cluster's task listing covers those hosts while they are in the cluster.
     */
    Set<HttpHost> nodesThatMayRunItsBulks() {
        Set<HttpHost> nodes = new HashSet<>(givenUpOn);
        for (Batch batch : unfinished) {
            if (batch.sentTo != null) {
                nodes.add(batch.sentTo);
            }
        }
        return nodes;
    }

    int bufferedDocs() {
        return buffers.bufferedDocs();
    }

    int unpredictableIndices() {
        return predictor.unpredictableIndices();
    }

    @Override
    public void close() throws Exception {
        retries.close();
        partialSends.close();
        mailbox.close();
        drain.close();
        dispatcher.close(); // the failure handler is its opener's to close (BulkWriterOperator)
    }
}
