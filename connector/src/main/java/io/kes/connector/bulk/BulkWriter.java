package io.kes.connector.bulk;

import io.kes.connector.DocumentOperation;
import io.kes.connector.Durability;
import io.kes.connector.FailureHandler;
import io.kes.connector.SinkSettings;
import io.kes.connector.cluster.RestClients;
import io.kes.connector.cluster.SentTo;
import io.kes.connector.cluster.TargetNodeSelector;
import io.kes.connector.fence.CheckpointFence;
import io.kes.connector.fence.EndOfInputFlushes;
import io.kes.connector.fence.EpochFinisher;
import io.kes.connector.fence.Epochs;
import io.kes.connector.internal.Backoff;
import io.kes.connector.internal.Housekeeping;
import io.kes.connector.routing.PredictedShard;
import io.kes.connector.routing.ShardPredictor;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.metrics.MetricGroup;
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
 * <p>Checkpoints do not stop the writes, nor cut bulks short. At a barrier, {@link #checkpoint()}
 * closes the current {@link Epochs epoch}, which a buffer joins with its first document (and the bulk
 * it becomes, with documents from after the barrier too, stays in); the future it returns
 * completes once every bulk of that epoch (and of older ones) is done and, with
 * the checkpoint fence, Elasticsearch made them durable. The caller waits on that future off the task thread (the asynchronous part of the
 * checkpoint), and documents after the barrier keep flowing meanwhile. Only the end of a bounded
 * input waits on the task thread ({@link #drainAndMakeDurable()}).
 *
 * <p>The pieces: {@link Departures} decides when a bulk leaves: it fills the per-shard buffers
 * ({@link SlotBuffers}), queues each one that must go per node ({@link NodeBudgets}), and lets one
 * that is not full go when {@link DepartureRule} says so; it sends through a {@link BulkTransport}
 * ({@link BulkDispatcher}). {@link BulkLifecycle} owns every bulk from then on and applies what the
 * pure deciders say its answer does: {@link ItemOutcomes} per item, {@link BulkAnswers} for the bulk (retry, 413 split, the
 * failure handler, give up, wait for its node: {@link AbandonedBulks}), {@link Retries} when it
 * goes again. {@link CheckpointDrain} puts each bulk in an epoch and finishes an epoch once its
 * bulks are done; {@link WriteFailures} words the errors. This class predicts (unless the router
 * did: {@link RoutedOperation}), buffers and closes epochs. The transport, the predictions, the mailbox, the timers and the clock come from outside,
 * so that {@code BulkWriterTest} drives every order guarantee with fakes.
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
final class BulkWriter implements AutoCloseable {

    private final WriterRouting predictor;
    private final TaskThread task;
    private final TaskMailbox mailbox;
    private final ProcessingTimeService time;
    private final BulkMetrics metrics;
    private final SlotBuffers buffers;
    private final BulkTransport transport;
    private final BulkLifecycle bulks;
    private final Departures departures;
    private final CheckpointDrain drain;

    @VisibleForTesting
    final NodeBudgets budgets;

    private long lastForgetMillis;

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
                new TaskThread(
                        taskMailbox,
                        new WriterTimers(taskMailbox, "kes-writer-timers-" + subtaskIndex),
                        System::nanoTime),
                new Reporting(metricGroup, subtaskIndex, failureHandler, opaqueId),
                client);
    }

    /**
     * Where the writer reports: its metrics, its subtask (thread names), documents that will not be
     * written, and its job ({@link EarlierWrites#tag}; the writers of one job in one process end a
     * bounded input with one flush: {@link EndOfInputFlushes}).
     */
    record Reporting(MetricGroup metricGroup, int subtaskIndex, FailureHandler failureHandler, String job) {}

    /**
     * The parts a unit test replaces: the transport (built from the writer's metrics), predictions,
     * and the task thread's mailbox, timers and clock.
     *
     * @param fenceClient what the checkpoint fence asks, with {@link Durability#CHECKPOINT_FENCE}; with
     *                    any other durability a checkpoint waits for acknowledgements only and this may be null
     */
    BulkWriter(
            SinkSettings settings,
            WriterRouting predictor,
            Function<BulkMetrics, BulkTransport> transport,
            TaskThread task,
            Reporting reporting,
            RestClient fenceClient)
            throws Exception {
        this.predictor = predictor;
        this.task = task;
        this.mailbox = task.mailbox();
        this.time = task.time();
        this.budgets = new NodeBudgets(
                settings.maxInFlight(),
                settings.adaptiveConcurrency(),
                settings.hosts().size() == 1 ? RestClients.hosts(settings)[0] : null);
        this.buffers = new SlotBuffers(
                settings.shardGrouping(),
                settings.maxDocs(),
                settings.maxBytes(),
                settings.maxBufferedBytes(),
                time::getCurrentProcessingTime);
        this.metrics = new BulkMetrics(reporting.metricGroup(), buffers, predictor, budgets);
        this.transport = transport.apply(metrics);
        // retry.initial_backoff and retry.max_backoff pace the writes' retries and the fence's alike.
        CheckpointFence fence = settings.durability() == Durability.CHECKPOINT_FENCE
                ? new CheckpointFence(
                        fenceClient,
                        new Backoff(settings.initialBackoff(), settings.maxBackoff()),
                        settings.maxRetryTime(),
                        settings.fenceSyncWait(),
                        EndOfInputFlushes.join(reporting.job() + " -> " + settings.hosts()))
                : null;
        this.drain = new CheckpointDrain(
                new EpochFinisher(
                        fence,
                        reporting.failureHandler(),
                        metrics.fenceFailures,
                        metrics.fenceMillis,
                        mailbox::wake,
                        "kes-checkpoint-fence-" + reporting.subtaskIndex()),
                mailbox,
                task.nanoTime(),
                metrics.checkpointWaitMillis);
        this.bulks = new BulkLifecycle(
                settings,
                task,
                new BulkLifecycle.Parts(this.transport, budgets, buffers, drain, metrics, predictor),
                reporting.failureHandler());
        this.departures = bulks.departures();
    }

    public void write(DocumentOperation op) throws InterruptedException {
        write(op, null);
    }

    /** Writes {@code op} where its router predicted it, or, {@code predicted} null, where this writer predicts it. */
    public void write(DocumentOperation op, PredictedShard predicted) throws InterruptedException {
        bulks.rethrowFailure();
        PredictedShard prediction = predicted != null ? predicted : predictor.predict(op);
        if (!prediction.knowsShard()) {
            metrics.docsWithUnknownShard.inc();
        }
        departures.add(op, prediction);
    }

    /**
     * A checkpoint barrier: closes the current epoch. Sends nothing: a buffer that is not full goes
     * when it would have anyway, so a barrier does not cut bulks short, and that is within
     * {@code bulk.linger} of its first document ({@link DepartureRule}). Returns at once; the future
     * completes when every document written before this barrier went out in a bulk and every such
     * bulk is done, retries included, and, with {@link Durability#CHECKPOINT_FENCE},
     * Elasticsearch made them durable with no primary failover in between. It fails with the first
     * write failure, or the fence's. Wait on it off the task thread.
     */
    public CompletableFuture<Void> checkpoint() throws InterruptedException {
        bulks.rethrowFailure();
        long now = time.getCurrentProcessingTime();
        if (now - lastForgetMillis > Housekeeping.FORGET_IDLE_TARGETS_MILLIS) {
            lastForgetMillis = now;
            buffers.forgetIdleTargets();
            budgets.forgetIdleNodes();
        }
        return drain.closeEpoch();
    }

    /**
     * The end of a bounded input: {@link #sendBuffers()}, {@link #checkpoint()}, then waits for it on
     * the task thread, so the task only finishes with every write acknowledged and durable (flushed
     * at once: no later write will share the translog's next sync, so waiting for it would only
     * delay the job's end). Rethrows a failure.
     */
    public void drainAndMakeDurable() throws Exception {
        drain.endInput();
        sendBuffers();
        drain.awaitOnTaskThread(checkpoint());
    }

    /**
     * No document follows (the input ended, or the job stops with a savepoint): sends every buffer
     * now, for none will fill any further and the last checkpoint waits for them.
     */
    public void sendBuffers() throws InterruptedException {
        departures.sendAll();
    }

    /** See {@link BulkLifecycle#nodesThatMayRunItsBulks()}. */
    Set<SentTo> nodesThatMayRunItsBulks() {
        return bulks.nodesThatMayRunItsBulks();
    }

    @Override
    public void close() throws Exception {
        bulks.close();
        mailbox.close();
        drain.close();
        task.close();
        transport.close(); // the failure handler is its opener's to close (BulkWriterOperator)
    }
}
