package io.kes.connector.exchange;

import io.kes.connector.DocumentOperation;
import io.kes.connector.NonRecoverable;
import io.kes.connector.SinkSettings;
import io.kes.connector.internal.OneInputOperatorFactory;
import io.kes.connector.routing.ShardPredictor;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * {@code kes: shard slots}, chained to the sink's input: predicts each document's shard (with the
 * routing table it shares with the writer of its subtask) and tags it with its slot's key
 * ({@link SlotKeys}), which the exchange behind it maps onto one writer (the writers run at the
 * router's parallelism). Tracks checkpoint
 * barriers and completions, which tell it when an id whose key changed with a layout may move to
 * its new writer. Stateless: after a restore every writer starts empty.
 */
final class SlotRouter extends AbstractStreamOperator<Tuple2<Integer, DocumentOperation>>
        implements OneInputStreamOperator<DocumentOperation, Tuple2<Integer, DocumentOperation>> {

    private static final long serialVersionUID = 1L;

    private final SinkSettings settings;
    /** The sink this router keys for: its subtask's writer shares its routing table. */
    private final String sink;

    private transient ShardPredictor predictor;
    private transient SlotKeys keys;
    /** Reused: the exchange serializes each record before the next one comes. */
    private transient Tuple2<Integer, DocumentOperation> keyed;

    private SlotRouter(
            StreamOperatorParameters<Tuple2<Integer, DocumentOperation>> parameters,
            SinkSettings settings,
            String sink) {
        super(parameters);
        this.settings = settings;
        this.sink = sink;
    }

    static OneInputStreamOperatorFactory<DocumentOperation, Tuple2<Integer, DocumentOperation>> factory(
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
        keys = new SlotKeys(getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks());
        keyed = new Tuple2<>();
        getMetricGroup().gauge("slotKeysRemembered", () -> keys.remembered());
        getMetricGroup().gauge("hotSlots", () -> keys.hotSlots());
    }

    @Override
    public void processElement(StreamRecord<DocumentOperation> element) throws Exception {
        DocumentOperation op = element.getValue();
        try {
            keyed.f0 = keys.keyOf(op, predictor.predict(op));
        } catch (LinkageError missingClass) {
            throw NonRecoverable.classify(missingClass);
        }
        keyed.f1 = op;
        output.collect(element.replace(keyed));
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
