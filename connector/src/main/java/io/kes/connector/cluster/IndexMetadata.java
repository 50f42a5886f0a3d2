package io.kes.connector.cluster;

import java.time.Duration;
import java.util.List;
import org.apache.flink.annotation.Internal;

/**
 * What kes needs to know about one concrete index, as the cluster state has it. Note that
 * {@code routing_num_shards} comes from {@code _cluster/state/metadata}: the
 * {@code number_of_routing_shards} that {@code _settings?include_defaults} shows is a default that
 * routing does not use.
 *
 * @param name                 concrete index name
 * @param uuid                 {@code settings.index.uuid}: a deleted and re-created index has the same name, not the same uuid
 * @param numberOfShards       {@code settings.index.number_of_shards}
 * @param routingNumShards     {@code routing_num_shards}
 * @param routingPartitionSize {@code settings.index.routing_partition_size} (1 when unset)
 * @param routedByDocument     false for indices that route on document fields (time_series,
 *                             routing_path, logsdb routed on sort fields): no client prediction
 * @param primaryTerms         current primary term per shard
 * @param translogSyncInterval {@code settings.index.translog.sync_interval} (Elasticsearch's 5 s when unset): how
 *                             often an async-durability index fsyncs its translog by itself
 * @param indexPipelines       {@code settings.index.default_pipeline} and {@code final_pipeline} ({@code _none} left
 *                             out): read with the rest, so one added or changed later is seen at the next read
 * @param refreshInterval      {@code settings.index.refresh_interval} (Elasticsearch's 1 s when unset,
 *                             {@link #NO_REFRESH} for {@code -1}): how often its new documents become searchable
 */
@Internal
public record IndexMetadata(
        String name,
        String uuid,
        int numberOfShards,
        int routingNumShards,
        int routingPartitionSize,
        boolean routedByDocument,
        long[] primaryTerms,
        Duration translogSyncInterval,
        List<String> indexPipelines,
        Duration refreshInterval) {

    /** An index without default or final pipeline, with Elasticsearch's default refresh interval. */
    public IndexMetadata(
            String name,
            String uuid,
            int numberOfShards,
            int routingNumShards,
            int routingPartitionSize,
            boolean routedByDocument,
            long[] primaryTerms,
            Duration translogSyncInterval) {
        this(
                name,
                uuid,
                numberOfShards,
                routingNumShards,
                routingPartitionSize,
                routedByDocument,
                primaryTerms,
                translogSyncInterval,
                List.of(),
                DEFAULT_REFRESH_INTERVAL);
    }

    /** Elasticsearch's default {@code index.refresh_interval}. */
    public static final Duration DEFAULT_REFRESH_INTERVAL = Duration.ofSeconds(1);

    /** {@code index.refresh_interval: -1}: no periodic refresh; documents become searchable at an explicit one. */
    public static final Duration NO_REFRESH = Duration.ofMillis(-1);

    /** Elasticsearch's default {@code index.translog.sync_interval}. */
    public static final Duration DEFAULT_TRANSLOG_SYNC_INTERVAL = Duration.ofSeconds(5);
}
