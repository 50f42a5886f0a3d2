package io.kes.connector.exchange;

import io.kes.connector.DocumentOperation;
import io.kes.connector.NonRecoverable;
import io.kes.connector.SinkSettings;
import io.kes.connector.bulk.RoutedOperation;
import io.kes.connector.internal.OneInputOperatorFactory;
import io.kes.connector.routing.PredictedShard;
import io.kes.connector.routing.ShardPredictor;
import java.util.List;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.runtime.io.network.api.writer.ResultPartitionWriter;
import org.apache.flink.runtime.jobgraph.IntermediateDataSetID;
import org.apache.flink.streaming.api.graph.NonChainedOutput;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * {@code kes: shard slots}, chained to the sink's input: predicts each document's shard (with the
 * routing table the routers and writers of its JVM share) and tags it with its slot's key
 * ({@link SlotKeys}), which the exchange behind it maps onto one writer (keyed by the writers that
 * really run: {@link #writers()}), and with that prediction, which its writer uses instead of predicting again. Tracks checkpoint
 * barriers and completions, which tell it when an id whose key changed with a layout may move to
 * its new writer. Stateless: after a restore every writer starts empty.
 */
final class SlotRouter extends AbstractStreamOperator<RoutedOperation>
        implements OneInputStreamOperator<DocumentOperation, RoutedOperation> {

    private static final long serialVersionUID = 1L;

    private final SinkSettings settings;
    /** The sink this router keys for: the writers in its JVM share its routing table. */
    private final String sink;

    private transient ShardPredictor predictor;
    private transient SlotKeys keys;
    /** Reused: the exchange serializes each record before the next one comes. */
    private transient RoutedOperation routed;

    private SlotRouter(StreamOperatorParameters<RoutedOperation> parameters, SinkSettings settings, String sink) {
        super(parameters);
        this.settings = settings;
        this.sink = sink;
    }

    static OneInputStreamOperatorFactory<DocumentOperation, RoutedOperation> factory(
            SinkSettings settings, String sink) {
        return new OneInputOperatorFactory<>(
                SlotRouter.class, parameters -> new SlotRouter(parameters, settings, sink));
    }

    @Override
    public void open() throws Exception {
        super.open();
        // The graph was keyed seeing aligned checkpoints (SlotExchange.keyed); unaligned ones set
        // after the sink was added, or by the cluster, show only here: the barrier handlers read this.
        if (CheckpointingOptions.isUnalignedCheckpointEnabled(
                getContainingTask().getJobConfiguration())) {
            throw NonRecoverable.error("kes's writers were keyed by shard slot when the job graph was built,"
                    + " with aligned checkpoints, but the job runs with unaligned checkpoints, which break per-id"
                    + " order across the exchange: set execution.checkpointing.unaligned.enabled: false before"
                    + " the sink is added, or bulk.topology: chained");
        }
        predictor = ShardPredictor.openShared(
                ShardPredictor.keyOf(sink, getRuntimeContext().getTaskInfo()),
                settings,
                "kes-layout-reads-" + getRuntimeContext().getTaskInfo().getIndexOfThisSubtask());
        keys = new SlotKeys(writers());
        routed = new RoutedOperation();
        getMetricGroup().gauge("slotKeysRemembered", () -> keys.remembered());
        getMetricGroup().gauge("hotSlots", () -> keys.hotSlots());
    }

    /**
     * The writers this router's keys are spread over: the exchange's channels, that is the writers'
     * parallelism as it runs. The job graph gives routers and writers one parallelism, but the
     * Kubernetes operator's autoscaler ({@code pipeline.jobvertex-parallelism-overrides}) or the
     * adaptive scheduler set each vertex's own: keyed by its own parallelism a router would mean
     * other writers than the exchange ({@code key mod writers}) reaches, and its "same writer
     * either way" shortcut ({@link SlotKeys}) would let an id move writer with a write still
     * buffered on the old one.
     */
    private int writers() {
        List<NonChainedOutput> outputs = getOperatorConfig().getOperatorNonChainedOutputs(getUserCodeClassloader());
        if (outputs.size() == 1) {
            IntermediateDataSetID exchange = outputs.get(0).getDataSetId();
            for (ResultPartitionWriter out :
                    getContainingTask().getEnvironment().getAllWriters()) {
                if (out.getPartitionId()
                        .getPartitionId()
                        .getIntermediateDataSetID()
                        .equals(exchange)) {
                    return out.getNumberOfSubpartitions();
                }
            }
        }
        throw new IllegalStateException("kes's shard-slot router found no exchange to its writers (outputs: " + outputs
                + "): it must be followed by the exchange SlotExchange builds");
    }

    @Override
    public void processElement(StreamRecord<DocumentOperation> element) throws Exception {
        DocumentOperation op = element.getValue();
        try {
            PredictedShard predicted = predictor.predict(op);
            routed.set(keys.keyOf(op, predicted), predictor, predicted, op);
        } catch (LinkageError missingClass) {
            throw NonRecoverable.classify(missingClass);
        }
        output.collect(element.replace(routed));
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        keys.barrier(checkpointId);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        keys.completed(checkpointId);
    }

    @Override
    public void close() throws Exception {
        try {
            if (predictor != null) {
                predictor.close();
            }
        } finally {
            super.close();
        }
    }
}
