package io.kes.connector;

import io.kes.connector.exchange.SlotExchange;
import java.util.List;
import org.apache.flink.annotation.PublicEvolving;
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
 * <p>Each writer computes every document's shard with Elasticsearch's own formula (calibrated per
 * index against the node) and buffers per (index, shard), so that every bulk touches one shard and
 * never waits on the slowest of many. The prediction only decides batching: Elasticsearch still
 * routes every document itself, so a wrong guess costs speed, never data.
 *
 * <p>Order: for every document id, Elasticsearch applies the writes in the order the sink's input
 * subtask emitted them (see {@code bulk.BulkWriter}). Keyed ({@code bulk.topology}; the default
 * from 4 writers up) a router chained to the input keys each document by its shard slot and sends
 * it to the one writer that owns the slot, one id to one writer at a time; chained the writer runs
 * in its input's subtask. Either way records of one input subtask (for Kafka, one partition's records, in
 * offset order) keep their order per id. Keep the records of one id on one input subtask (Kafka
 * partitions by key; otherwise {@code keyBy} the id before the sink): writes of one id from two
 * subtasks have no order to keep.
 *
 * <p>Delivery: at least once. A checkpoint completes only when every write before its barrier is
 * acknowledged and, with the default {@link Durability#CHECKPOINT_FENCE}, flushed with no primary
 * failover since (see {@code bulk.BulkWriter#checkpoint}); that wait is in the asynchronous part of the
 * checkpoint, so writing goes on meanwhile. After a failure the job replays from the last
 * checkpoint. Give documents deterministic ids (e.g. from Kafka coordinates) and a replay
 * overwrites instead of duplicating. Operations without an id are appended again on replay.
 *
 * <p>Topology: {@code kes: shard slots} then {@code kes: bulk writer} (keyed), or the bulk writer
 * alone, chained to the input (chained, and always with one writer); see
 * {@code exchange.SlotExchange}. The bulk writer is an operator of the pre-write topology, not the
 * Sink V2 writer, because only an operator can wait for Elasticsearch in the asynchronous part of
 * a checkpoint ({@code bulk.BulkWriterOperator} says why); the sink's own writer receives nothing.
 */
@PublicEvolving
public final class ElasticsearchSink implements Sink<DocumentOperation>, SupportsPreWriteTopology<DocumentOperation> {

    private static final long serialVersionUID = 1L;

    private final SinkSettings settings;
    private final FailureHandler failureHandler;
    /** The names the job writes to, where all are known before it runs; empty otherwise. */
    private final List<String> targets;

    ElasticsearchSink(SinkSettings settings, FailureHandler failureHandler) {
        this(settings, failureHandler, List.of());
    }

    private ElasticsearchSink(SinkSettings settings, FailureHandler failureHandler, List<String> targets) {
        this.settings = settings;
        this.failureHandler = failureHandler;
        this.targets = List.copyOf(targets);
    }

    /**
     * This sink, told every index, alias, data stream or name template the job writes to. With
     * {@code bulk.topology: auto} the writers then run chained when each of them has a single shard,
     * read from the cluster as the job's graph is built: keyed writers gain nothing there. A name
     * template leaves the choice to the number of writers, as not calling this does.
     */
    public ElasticsearchSink writingTo(List<String> targets) {
        return new ElasticsearchSink(settings, failureHandler, targets);
    }

    public static ElasticsearchSinkBuilder builder() {
        return new ElasticsearchSinkBuilder();
    }

    /**
     * A sink from settings validated before, e.g. when a job's config was loaded ({@link SinkSettings#from}),
     * so that they are read and checked once.
     */
    public static ElasticsearchSink of(SinkSettings settings, FailureHandler failureHandler) {
        return new ElasticsearchSink(
                java.util.Objects.requireNonNull(settings, "settings"),
                java.util.Objects.requireNonNull(failureHandler, "failureHandler"));
    }

    public SinkSettings settings() {
        return settings;
    }

    @Override
    public DataStream<DocumentOperation> addPreWriteTopology(DataStream<DocumentOperation> input) {
        // Stateless, so no uids: Flink would then demand one on every sink that uses this one, and
        // a checkpoint of either topology restores into the other.
        return SlotExchange.writerTopology(input, settings, failureHandler, targets);
    }

    /** Receives nothing: {@code kes: bulk writer} in the pre-write topology writes and emits no record. */
    @Override
    public SinkWriter<DocumentOperation> createWriter(WriterInitContext context) {
        return new SinkWriter<>() {
            @Override
            public void write(DocumentOperation element, Context context) {
                throw new IllegalStateException(
                        "kes writes in its bulk writer operator; no record should reach the sink writer");
            }

            @Override
            public void flush(boolean endOfInput) {}

            @Override
            public void close() {}
        };
    }
}
