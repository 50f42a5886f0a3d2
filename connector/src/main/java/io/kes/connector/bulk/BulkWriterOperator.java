package io.kes.connector.bulk;

import io.kes.connector.DocumentOperation;
import io.kes.connector.FailureHandler;
import io.kes.connector.NonRecoverable;
import io.kes.connector.SinkSettings;
import io.kes.connector.cluster.PrivilegeCheck;
import io.kes.connector.cluster.RestClients;
import io.kes.connector.cluster.TargetNodeSelector;
import io.kes.connector.internal.OneInputOperatorFactory;
import io.kes.connector.routing.PredictedShard;
import io.kes.connector.routing.ShardPredictor;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RunnableFuture;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.checkpoint.SnapshotType;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.OperatorStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.OperatorSnapshotFutures;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.IOUtils;
import org.apache.flink.util.concurrent.FutureUtils;
import org.elasticsearch.client.RestClient;

/**
 * The Flink operator that runs a {@link BulkWriter}, and the reason kes's writer is an operator
 * and not a Sink V2 {@code SinkWriter}: a sink writer can only make a checkpoint wait for
 * Elasticsearch by blocking its task thread in {@code flush}, and then nothing is read, routed or
 * written until the drain, the translog fsync and the primary-term check are over (measured: 1.5 s
 * of standstill per checkpoint, a quarter of the throughput at 10 s intervals). An operator can
 * put that wait into the asynchronous part of its snapshot instead: at the barrier it only closes
 * the writer's epoch, and the checkpoint's state future first waits, on Flink's asynchronous
 * checkpoint thread, until that epoch is durable. The checkpoint still completes only after every
 * write before its barrier is safe; the task writes on meanwhile.
 *
 * <p>It emits nothing. {@link io.kes.connector.ElasticsearchSink} places it last in its pre-write
 * topology; the sink's own writer then receives nothing.
 */
@Internal
public final class BulkWriterOperator<IN> extends AbstractStreamOperator<DocumentOperation>
        implements OneInputStreamOperator<IN, DocumentOperation>, BoundedOneInput {

    private static final long serialVersionUID = 1L;
    private static final long TASK_FAILURE_GRACE_MILLIS = 60_000;

    private final SinkSettings settings;
    private final FailureHandler failureHandler;
    /** Behind the slot exchange: the sink whose routers' routing table this writer shares; chained: null. */
    private final String keyedSink;

    private final transient MailboxExecutor mailbox;
    private transient BulkWriter writer;
    /** The writer's, built before it so that a writer that fails to construct does not take it along. */
    private transient RestClient bulkClient;
    /** Opened and closed here, not by the writer: it may fail to open, and outlive a writer that failed. */
    private transient FailureHandler failures;
    /** The {@code X-Opaque-Id} of this job's bulks ({@link EarlierWrites#tag}). */
    private transient String tag;
    /** With its own metadata client and read thread ({@link ShardPredictor#open}), keyed its JVM's routers' ({@link ShardPredictor#openShared}). */
    private transient ShardPredictor predictor;
    /**
     * Keyed: documents that came with their router's prediction and were predicted again, because
     * that router runs in another JVM (another routing table) or the layout it named was replaced
     * while the record waited in the exchange (a moved primary term, a re-created index).
     */
    private transient Counter docsPredictedAgain;

    private transient boolean endOfInput;
    /** The epoch closed by the latest barrier, until its snapshot picks it up. */
    private transient long barrierCheckpointId = -1;

    private transient CompletableFuture<Void> barrierEpochDurable;

    private BulkWriterOperator(
            StreamOperatorParameters<DocumentOperation> parameters,
            SinkSettings settings,
            FailureHandler failureHandler,
            String keyedSink) {
        super(parameters);
        this.settings = settings;
        this.failureHandler = failureHandler;
        this.keyedSink = keyedSink;
        this.mailbox = parameters.getMailboxExecutor();
    }

    /** The factory Flink creates the operator from, one per subtask: a writer of the operations it receives. */
    public static OneInputStreamOperatorFactory<DocumentOperation, DocumentOperation> factory(
            SinkSettings settings, FailureHandler failureHandler) {
        return writerFactory(settings, failureHandler, null);
    }

    /**
     * A writer behind the slot exchange of {@code sink}: it receives routed operations and writes
     * each where its router predicted it, with the routing table the routers of its JVM share.
     */
    public static OneInputStreamOperatorFactory<RoutedOperation, DocumentOperation> keyedFactory(
            SinkSettings settings, FailureHandler failureHandler, String sink) {
        return writerFactory(settings, failureHandler, sink);
    }

    private static <IN> OneInputStreamOperatorFactory<IN, DocumentOperation> writerFactory(
            SinkSettings settings, FailureHandler failureHandler, String keyedSink) {
        return new OneInputOperatorFactory<>(
                BulkWriterOperator.class,
                parameters -> new BulkWriterOperator<>(parameters, settings, failureHandler, keyedSink));
    }

    /**
     * Each part is kept in a field as soon as it exists, so that {@link #close()}, which Flink calls
     * after a failed {@code open} too, releases it: a writer that cannot open (a dead-letter
     * producer that cannot be built) is restarted again and again, and each attempt's threads
     * would otherwise stay.
     */
    @Override
    public void open() throws Exception {
        super.open();
        TargetNodeSelector selector = new TargetNodeSelector(List.of(RestClients.hosts(settings)));
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        failures = new UnauthorizedWrites(failureHandler);
        failures.open(subtask); // first: it fails most often, and before any thread of kes's exists
        predictor = keyedSink == null
                ? ShardPredictor.open(settings, "kes-layout-reads-" + subtask)
                : ShardPredictor.openShared(
                        ShardPredictor.keyOf(keyedSink, getRuntimeContext().getTaskInfo()),
                        settings,
                        "kes-layout-reads-" + subtask);
        docsPredictedAgain = getMetricGroup().counter("docsPredictedAgain");
        RestClient metadataClient = predictor.metadataClient();
        PrivilegeCheck.atOpen(metadataClient, settings);
        tag = EarlierWrites.tag(getRuntimeContext().getJobInfo().getJobName());
        EarlierWrites.awaitGone(metadataClient, settings, tag, settings.maxRetryTime());
        bulkClient = RestClients.create(settings, selector);
        writer = BulkWriter.open(
                settings, bulkClient, selector, predictor, mailbox, getMetricGroup(), subtask, failures, tag);
    }

    @Override
    public void processElement(StreamRecord<IN> element) throws Exception {
        try {
            if (element.getValue() instanceof RoutedOperation routed) {
                PredictedShard predicted = routed.prediction(predictor);
                if (predicted == null && routed.cameWithPrediction()) {
                    docsPredictedAgain.inc();
                }
                writer.write(routed.operation(), predicted);
            } else {
                writer.write((DocumentOperation) element.getValue());
            }
        } catch (LinkageError missingClass) {
            throw NonRecoverable.classify(missingClass); // a restart loads the same classes: stop the job instead
        }
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        if (!endOfInput) {
            barrierEpochDurable = writer.checkpoint();
            barrierCheckpointId = checkpointId;
        }
    }

    /** Adds "the writes before this barrier are durable" to the asynchronous part of the snapshot. */
    @Override
    public OperatorSnapshotFutures snapshotState(
            long checkpointId, long timestamp, CheckpointOptions options, CheckpointStreamFactory storage)
            throws Exception {
        OperatorSnapshotFutures snapshot = super.snapshotState(checkpointId, timestamp, options, storage);
        if (stopsTheJob(options)) {
            // A stop with a savepoint: no record follows (without drain Flink calls no finish() and
            // no endInput()), so the buffers go now instead of at their coalesce or linger.
            writer.sendBuffers();
        }
        if (barrierCheckpointId == checkpointId && barrierEpochDurable != null) {
            CompletableFuture<Void> durable = barrierEpochDurable;
            barrierEpochDurable = null;
            snapshot.setOperatorStateManagedFuture(afterDurable(durable, snapshot.getOperatorStateManagedFuture()));
        }
        return snapshot;
    }

    /** A synchronous savepoint: the job stops (or suspends) once it completes. */
    private static boolean stopsTheJob(CheckpointOptions options) {
        SnapshotType type = options.getCheckpointType();
        return type.isSavepoint() && ((SavepointType) type).isSynchronous();
    }

    /**
     * Runs on the asynchronous checkpoint thread. When the epoch cannot be made durable, the writer
     * fails its task ({@link BulkWriter#checkpoint}), which restarts the failed pipelined region
     * from the last checkpoint. The same error thrown here at once would race it as a failed
     * checkpoint, which Flink by default answers with a restart of the whole job; so this waits for
     * the task failure to cancel it, and only reports the error itself if that never comes.
     */
    private static RunnableFuture<SnapshotResult<OperatorStateHandle>> afterDurable(
            CompletableFuture<Void> durable, RunnableFuture<SnapshotResult<OperatorStateHandle>> state) {
        return new FutureTask<>(() -> {
            try {
                durable.get();
            } catch (ExecutionException e) {
                Thread.sleep(TASK_FAILURE_GRACE_MILLIS); // interrupted when the failing task cancels this snapshot
                throw e.getCause() instanceof Exception cause ? cause : e;
            }
            return FutureUtils.runIfNotDoneAndGet(state);
        });
    }

    @Override
    public void endInput() throws Exception {
        endOfInput = true;
        writer.drainAndMakeDurable();
    }

    /** Closes what {@link #open()} made, also when it failed half-way: each part whatever the others throw. */
    @Override
    public void close() throws Exception {
        BulkWriter opened = writer;
        RestClient bulks = bulkClient;
        FailureHandler handler = failures;
        IOUtils.closeAll(
                () -> {
                    if (opened != null) {
                        // a writer Flink starts in its place (a failed region restarts in place) waits for these
                        EarlierWrites.leftOn(tag, opened.nodesThatMayRunItsBulks());
                        opened.close(); // with its REST client
                    } else if (bulks != null) {
                        bulks.close();
                    }
                },
                () -> {
                    if (handler != null) {
                        handler.close();
                    }
                },
                predictor,
                super::close);
    }
}
