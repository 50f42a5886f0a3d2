package io.kes.connector.routing;

import java.util.Collections;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.annotation.Internal;

/**
 * Everything needed to compute, on the client, the shard Elasticsearch will put a document in, for
 * one concrete index. kes groups documents by that shard so that each {@code _bulk} targets a single
 * shard; a wrong answer never misplaces a document (the node routes it again), it only makes a bulk
 * span more shards.
 *
 * <p>The computation is Elasticsearch's {@code IndexRouting} for indices routed by {@code _id} /
 * {@code _routing} (not time_series or routing_path indices, which route on document fields):
 * <pre>
 *   r    = routing != null ? routing : id
 *   hash = Murmur3(r)                                        // UTF-16LE, seed 0
 *   hash += floorMod(Murmur3(id), routingPartitionSize)      // only when routingPartitionSize &gt; 1
 *   shard = function.shard(hash, numberOfShards, routingNumShards)
 * </pre>
 *
 * @param name                 concrete index name (for messages)
 * @param numberOfShards       {@code settings.index.number_of_shards}
 * @param routingNumShards     {@code routing_num_shards} from {@code _cluster/state/metadata}, not the
 *                             {@code number_of_routing_shards} default that {@code _settings} shows
 * @param routingPartitionSize {@code settings.index.routing_partition_size}; 1 means not partitioned
 * @param function             how this index maps a hash to a shard (depends on its created version)
 */
@Internal
public record IndexRouting(
        String name, int numberOfShards, int routingNumShards, int routingPartitionSize, RoutingFunction function) {

    public IndexRouting {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("index name must be non-empty");
        }
        if (function == null) {
            throw new IllegalArgumentException("routing function of index [" + name + "] must be given");
        }
        if (numberOfShards < 1) {
            throw new IllegalArgumentException(
                    "numberOfShards of index [" + name + "] must be at least 1, got " + numberOfShards);
        }
        if (routingNumShards < 1) {
            throw new IllegalArgumentException(
                    "routingNumShards of index [" + name + "] must be at least 1, got " + routingNumShards);
        }
        if (function == RoutingFunction.ROUTING_NUM_SHARDS && routingNumShards % numberOfShards != 0) {
            throw new IllegalArgumentException("numberOfShards (" + numberOfShards + ") must divide routingNumShards ("
                    + routingNumShards + ") of index [" + name + "] for " + function
                    + "; is routingNumShards the cluster state's routing_num_shards?");
        }
        if (routingPartitionSize < 1) {
            throw new IllegalArgumentException("routingPartitionSize of index [" + name
                    + "] must be at least 1 (1 = not partitioned), got " + routingPartitionSize);
        }
    }

    /** Whether documents of this index spread over several shards per routing value. */
    public boolean partitioned() {
        return routingPartitionSize > 1;
    }

    /**
     * The shard Elasticsearch puts the document {@code (id, routing)} in.
     *
     * @param id      the document {@code _id}; needed unless a routing is given on an unpartitioned index
     * @param routing the custom {@code _routing}, or null to route by {@code _id}
     * @throws IllegalArgumentException when the routing value is missing: no id and no routing, or no
     *                                  routing (or no id) on a partitioned index
     */
    public int shardOf(String id, String routing) {
        String effective = routing != null ? routing : id;
        if (effective == null) {
            throw new IllegalArgumentException("document for index [" + name
                    + "] has neither _id nor _routing: its shard is chosen by Elasticsearch");
        }
        int hash = Murmur3.hash(effective);
        if (routingPartitionSize > 1) {
            if (routing == null) {
                throw new IllegalArgumentException("index [" + name + "] is partitioned (routing_partition_size "
                        + routingPartitionSize + "): documents need a custom _routing");
            }
            if (id == null) {
                throw new IllegalArgumentException("index [" + name + "] is partitioned (routing_partition_size "
                        + routingPartitionSize + "): the shard depends on the _id, which is missing");
            }
            hash += Math.floorMod(Murmur3.hash(id), routingPartitionSize);
        }
        return function.shard(hash, numberOfShards, routingNumShards);
    }

    /**
     * The shards a search with {@code ?routing=routing} visits, as {@code _search_shards} reports them:
     * one shard, or up to {@code routingPartitionSize} shards on a partitioned index (Elasticsearch's
     * {@code IndexRouting.collectSearchShards}). Not for the per-document path.
     */
    public Set<Integer> searchShards(String routing) {
        Objects.requireNonNull(routing, "routing");
        int hash = Murmur3.hash(routing);
        Set<Integer> shards = new TreeSet<>();
        for (int i = 0; i < routingPartitionSize; i++) {
            shards.add(function.shard(hash + i, numberOfShards, routingNumShards));
        }
        return Collections.unmodifiableSet(shards);
    }
}
