package io.kes.connector;

import io.kes.connector.bulk.BulkWriter;
import io.kes.connector.bulk.BulkWriterOperator;
import io.kes.connector.routing.ShardAssigner;
import io.kes.connector.routing.SlotPartitioner;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreWriteTopology;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * Writes {@link DocumentOperation}s to Elasticsearch in single-shard bulk requests.
 *
 * <pre>{@code
 * DataStream<DocumentOperation> ops = records.map(r -> DocumentOperation.index("logs", idOf(r), r.value()));
 * ops.sinkTo(ElasticsearchSink.builder()
 *         .setHosts("http://localhost:9200")
 *         .build());
 * }</pre>
 *
 * <p>Before the writers, the sink adds a routing step: it computes each document's shard with
 * Elasticsearch's own formula (calibrated per index against the node) and sends all documents of
 * one (index, shard) slot to the same writer subtask, so that every bulk touches one shard and
 * never waits on the slowest of many. The prediction only decides batching: Elasticsearch still
 * routes every document itself, so a wrong guess costs speed, never data.
 *
 * <p>Delivery: at least once. A checkpoint completes only when every write before its barrier is
 * acknowledged and, with the default {@link Durability#CHECKPOINT_FENCE}, flushed with no primary
 * failover since (see {@link BulkWriter#checkpoint}); that wait is in the asynchronous part of the
 * checkpoint, so writing goes on meanwhile. After a failure the job replays from the last
 * checkpoint. Give documents deterministic ids (e.g. from Kafka coordinates) and a replay
 * overwrites instead of duplicating. Operations without an id are appended again on replay.
 *
 * <p>Topology: {@code kes: predict shards} → (partition by slot) → {@code kes: bulk writer}, all
 * at the sink's parallelism. The bulk writer is an operator of the pre-write topology, not the
 * Sink V2 writer, because only an operator can wait for Elasticsearch in the asynchronous part of
 * a checkpoint ({@link BulkWriterOperator} says why); the sink's own writer receives nothing.
 */
public final class ElasticsearchSink implements Sink<DocumentOperation>, SupportsPreWriteTopology<DocumentOperation> {

    private static final long serialVersionUID = 1L;

    private final SinkSettings settings;
    private final FailureHandler failureHandler;

    ElasticsearchSink(SinkSettings settings, FailureHandler failureHandler) {
        this.settings = settings;
        this.failureHandler = failureHandler;
    }

    public static ElasticsearchSinkBuilder builder() {
        return new ElasticsearchSinkBuilder();
    }

    public SinkSettings settings() {
        return settings;
    }

    @Override
    public DataStream<DocumentOperation> addPreWriteTopology(DataStream<DocumentOperation> input) {
        // Stateless, so no uid: Flink would then demand one on every sink that uses this one.
        DataStream<DocumentOperation> routed = input.map(new ShardAssigner(settings)).name("kes: predict shards");
        if (settings.shardGrouping) {
            routed = routed.partitionCustom(new SlotPartitioner(), SlotPartitioner.KEY);
        }
        return routed.transform("kes: bulk writer", routed.getType(), BulkWriterOperator.factory(settings, failureHandler));
    }

    /** Receives nothing: {@code kes: bulk writer} in the pre-write topology writes and emits no record. */
    @Override
    public SinkWriter<DocumentOperation> createWriter(WriterInitContext context) {
        return new SinkWriter<>() {
            @Override
            public void write(DocumentOperation element, Context context) {
                throw new IllegalStateException("kes writes in its bulk writer operator; no record should reach the sink writer");
            }

            @Override
            public void flush(boolean endOfInput) {}

            @Override
            public void close() {}
        };
    }
}
