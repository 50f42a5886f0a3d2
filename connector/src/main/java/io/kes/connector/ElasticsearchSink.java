package io.kes.connector;

import io.kes.connector.bulk.BulkWriter;
import io.kes.connector.internal.RestClients;
import io.kes.connector.routing.ShardAssigner;
import io.kes.connector.routing.SlotPartitioner;
import java.io.IOException;
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
 * <p>Delivery: at least once. Each checkpoint waits until every buffered and in-flight write is
 * acknowledged (see {@link BulkWriter#flush}); after a failure the job replays from the last
 * checkpoint. Give documents deterministic ids (e.g. from Kafka coordinates) and a replay
 * overwrites instead of duplicating. Operations without an id are appended again on replay.
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
        if (!settings.shardGrouping) {
            return routed;
        }
        return routed.partitionCustom(new SlotPartitioner(), SlotPartitioner.KEY);
    }

    @Override
    public SinkWriter<DocumentOperation> createWriter(WriterInitContext context) throws IOException {
        try {
            return new BulkWriter(settings, RestClients.create(settings), context, failureHandler);
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("could not create the Elasticsearch writer", e);
        }
    }
}
