package io.kes.connector.routing;

import org.apache.flink.annotation.Internal;

/**
 * How an index turns a routing hash into a shard number.
 *
 * <p>Why there are two: Elasticsearch changed the function when it added index resharding
 * ({@code IndexVersions.MOD_ROUTING_FUNCTION}). Indices created before that (7.x, 8.x, early 9.x)
 * route through {@code routing_num_shards}, the split-friendly virtual shard count; indices created
 * after it route by plain modulo of the shard count. The index's created version decides, and that
 * version is not cheap to map from the outside, so kes tells them apart with probes
 * ({@link RoutingCalibrator}). Both functions are identical when
 * {@code routingNumShards == numberOfShards}.
 */
@Internal
public enum RoutingFunction {

    /**
     * {@code floorMod(hash, routingNumShards) / (routingNumShards / numberOfShards)}: indices created
     * by 7.x, 8.x and 9.x before {@code MOD_ROUTING_FUNCTION} (Elasticsearch's
     * {@code RoutingFunction.legacyRoutingNumberOfShards}).
     */
    ROUTING_NUM_SHARDS {
        @Override
        public int shard(int hash, int numberOfShards, int routingNumShards) {
            check(numberOfShards, routingNumShards);
            if (routingNumShards % numberOfShards != 0) {
                throw new IllegalArgumentException("numberOfShards (" + numberOfShards
                        + ") must divide routingNumShards (" + routingNumShards + ") for " + this);
            }
            return Math.floorMod(hash, routingNumShards) / (routingNumShards / numberOfShards);
        }
    },

    /**
     * {@code floorMod(hash, numberOfShards)}: indices created by recent 9.x, the ones that can be
     * resharded (Elasticsearch's {@code RoutingFunction.moduloNumberOfShards}).
     * {@code routingNumShards} is ignored.
     */
    MODULO {
        @Override
        public int shard(int hash, int numberOfShards, int routingNumShards) {
            check(numberOfShards, routingNumShards);
            return Math.floorMod(hash, numberOfShards);
        }
    };

    /**
     * The shard, in {@code [0, numberOfShards)}, that a routing hash maps to.
     *
     * @param hash             Murmur3 hash of the effective routing (plus the partition offset, if any)
     * @param numberOfShards   the index's primary shard count
     * @param routingNumShards the index's {@code routing_num_shards} from the cluster state
     */
    public abstract int shard(int hash, int numberOfShards, int routingNumShards);

    private static void check(int numberOfShards, int routingNumShards) {
        if (numberOfShards < 1) {
            throw new IllegalArgumentException("numberOfShards must be at least 1, got " + numberOfShards);
        }
        if (routingNumShards < 1) {
            throw new IllegalArgumentException("routingNumShards must be at least 1, got " + routingNumShards);
        }
    }
}
