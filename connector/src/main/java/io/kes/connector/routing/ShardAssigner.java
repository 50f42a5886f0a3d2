package io.kes.connector.routing;

import io.kes.connector.DocumentOperation;
import io.kes.connector.SinkSettings;
import io.kes.connector.internal.RestClients;
import java.util.Optional;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.metrics.Counter;
import org.elasticsearch.client.RestClient;

/**
 * The routing step before the writers: stamps every operation with the shard Elasticsearch will
 * put it in (see {@link IndexRoutingTable}), so {@link SlotPartitioner} can send each slot to one
 * writer. Operations without id and routing (Elasticsearch generates the id) and operations for
 * unpredictable indices keep {@link DocumentOperation#UNKNOWN_SHARD}.
 */
public final class ShardAssigner extends RichMapFunction<DocumentOperation, DocumentOperation> {

    private static final long serialVersionUID = 1L;

    private final SinkSettings settings;
    private transient RestClient client;
    private transient IndexRoutingTable table;
    private transient Counter unknownShard;

    public ShardAssigner(SinkSettings settings) {
        this.settings = settings;
    }

    @Override
    public void open(OpenContext openContext) {
        client = RestClients.create(settings);
        table = new IndexRoutingTable(new ClusterMetadataClient(client), System::currentTimeMillis);
        var group = getRuntimeContext().getMetricGroup().addGroup("kes");
        unknownShard = group.counter("docsWithUnknownShard");
        group.gauge("unpredictableIndices", () -> table.unpredictableIndices());
    }

    @Override
    public DocumentOperation map(DocumentOperation op) {
        if (op.id() != null || op.routing() != null) {
            Optional<IndexRouting> routing = table.routingFor(op.index());
            if (routing.isPresent() && predictable(routing.get(), op)) {
                return op.withShard(routing.get().shardOf(op.id(), op.routing()), routing.get().numberOfShards());
            }
        }
        unknownShard.inc();
        return op;
    }

    /** A partitioned index needs both id and routing; Elasticsearch rejects the write otherwise. */
    private static boolean predictable(IndexRouting routing, DocumentOperation op) {
        return !routing.partitioned() || (op.id() != null && op.routing() != null);
    }

    @Override
    public void close() throws Exception {
        if (client != null) {
            client.close();
        }
    }
}
