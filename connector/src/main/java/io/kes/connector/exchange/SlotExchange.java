package io.kes.connector.exchange;

import io.kes.connector.DocumentOperation;
import io.kes.connector.ElasticsearchSinkOptions;
import io.kes.connector.ElasticsearchSinkOptions.Topology;
import io.kes.connector.FailureHandler;
import io.kes.connector.SinkSettings;
import io.kes.connector.bulk.BulkWriterOperator;
import io.kes.connector.bulk.RoutedOperation;
import java.util.List;
import java.util.UUID;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.CheckpointConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sink's pre-write topology: how documents reach the bulk writers.
 *
 * <p>{@link Topology#KEYED}: {@code kes: shard slots} ({@link SlotRouter}, chained to the input)
 * keys each document by its shard slot; a custom partition sends each key to one writer
 * ({@code key mod writers}), so each slot is buffered in one writer and its bulks fill at the
 * slot's whole rate. Each document carries its router's prediction to its writer
 * ({@link RoutedOperation}), which buffers and fences it there without predicting again: the
 * routers and writers of one JVM share one routing table
 * ({@link io.kes.connector.routing.ShardPredictor#openShared}).
 * {@link Topology#CHAINED}: the writer runs in its input's subtask, with no exchange.
 * {@link Topology#AUTO} (the default): keyed from 4 writers up, unless every target the job names
 * has a single shard ({@link TargetShards}). With one writer, or without shard grouping, there is
 * nothing to key: the chained topology is used.
 *
 * <p>Per-id order: the records of one id come from one input subtask (one Kafka partition, in
 * offset order). Chained, they stay in that subtask. Keyed, they pass one router, which sends an
 * id to one writer at a time ({@link SlotKeys}) over one channel, in order.
 */
@Internal
public final class SlotExchange {

    private static final Logger LOG = LoggerFactory.getLogger(SlotExchange.class);

    private SlotExchange() {}

    /**
     * Builds the writer topology on {@code input}, keyed by shard slot or chained as
     * {@link #keyed} decides, and returns the bulk writers' stream (it carries no records).
     */
    public static DataStream<DocumentOperation> writerTopology(
            DataStream<DocumentOperation> input,
            SinkSettings settings,
            FailureHandler failureHandler,
            List<String> targets) {
        int parallelism = input.getParallelism();
        boolean unaligned = unalignedCheckpoints(input.getExecutionEnvironment().getCheckpointConfig());
        if (!keyed(settings, parallelism, unaligned) || singleShardTargets(settings, parallelism, targets)) {
            // The input's parallelism, so the writer is chained to it: any other would put a
            // round-robin shuffle in between, and writes of one id could reach two writers.
            return input.transform(
                            "kes: bulk writer", input.getType(), BulkWriterOperator.factory(settings, failureHandler))
                    .setParallelism(parallelism);
        }
        // names the routing table the routers and writers in one JVM share (ShardPredictor.openShared)
        String sink = UUID.randomUUID().toString();
        return input.transform("kes: shard slots", RoutedOperation.TYPE, SlotRouter.factory(settings, sink))
                .setParallelism(parallelism)
                .partitionCustom(new ByKey(), new KeyOf())
                .transform(
                        "kes: bulk writer",
                        input.getType(),
                        BulkWriterOperator.keyedFactory(settings, failureHandler, sink))
                .setParallelism(parallelism);
    }

    /**
     * Whether {@code settings} at {@code parallelism} writers run keyed ({@code -1}: left to the
     * cluster, which {@link Topology#AUTO} takes for a large one).
     *
     * <p>Not with unaligned checkpoints: when a layout change moves an id to another writer, the
     * router waits for a checkpoint that covers the id's last write to its old writer, and only an
     * aligned barrier has every record before it processed when the checkpoint completes (an
     * unaligned one may overtake them, leaving them in the channel's state). {@code auto} then
     * chains the writers; {@code keyed} is refused, saying what to change.
     */
    static boolean keyed(SinkSettings settings, int parallelism, boolean unalignedCheckpoints) {
        boolean wanted = switch (settings.topology()) {
            case KEYED -> true;
            case CHAINED -> false;
            case AUTO -> parallelism < 0 || parallelism >= ElasticsearchSinkOptions.KEYED_FROM_WRITERS;
        };
        if (!wanted || !settings.shardGrouping() || parallelism == 1) {
            return false;
        }
        if (unalignedCheckpoints) {
            if (settings.topology() == Topology.KEYED) {
                throw new IllegalArgumentException(
                        "bulk.topology: keyed needs aligned checkpoints (per-id order across the exchange "
                                + "rests on them), and unaligned checkpoints are enabled: set execution.checkpointing.unaligned.enabled: false, "
                                + "or bulk.topology: chained (or auto, which then chains the writers)");
            }
            LOG.info(
                    "Unaligned checkpoints are enabled: kes's writers run chained to their input, not keyed by shard slot "
                            + "(bulk.topology: auto); keyed writers need aligned checkpoints to keep per-id order across the exchange");
            return false;
        }
        return true;
    }

    /**
     * {@link Topology#AUTO} about to key the writers, and every target has one shard: nothing to
     * gain from the exchange ({@link TargetShards}).
     */
    private static boolean singleShardTargets(SinkSettings settings, int parallelism, List<String> targets) {
        if (settings.topology() != Topology.AUTO || TargetShards.mostOf(settings, targets) != 1) {
            return false;
        }
        LOG.info(
                "Every target ({}) has one shard: kes's {} writers run chained to their input, not keyed by shard slot "
                        + "(bulk.topology: auto; with one shard every writer buffers it either way)",
                targets,
                parallelism < 0 ? "" : parallelism);
        return true;
    }

    private static boolean unalignedCheckpoints(CheckpointConfig checkpoints) {
        return checkpoints.isUnalignedCheckpointsEnabled()
                && checkpoints.getCheckpointingConsistencyMode() == CheckpointingMode.EXACTLY_ONCE;
    }

    /** A slot key to its writer. */
    private static final class ByKey implements Partitioner<Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public int partition(Integer key, int writers) {
            return key % writers;
        }
    }

    private static final class KeyOf implements KeySelector<RoutedOperation, Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public Integer getKey(RoutedOperation routed) {
            return routed.key();
        }
    }
}
