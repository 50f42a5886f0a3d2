package io.kes.connector.routing;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.annotation.Internal;

/**
 * Finds out which {@link RoutingFunction} an index uses, from a few answers of the node itself.
 *
 * <p>Why: the function depends on the Elasticsearch version that created the index
 * ({@code IndexVersions.MOD_ROUTING_FUNCTION}), which kes cannot read reliably from the outside, and
 * indices of different ages live side by side (rolled-over data streams, upgraded clusters). So kes
 * asks where some probe routing values go ({@code GET <index>/_search_shards?routing=<v>}) and keeps
 * the function that agrees with every answer. If none agrees (unexpected numbers, a routing scheme
 * kes does not know), the caller stops predicting for that index; documents still land where the
 * node routes them, bulks just span more shards.
 *
 * <p>Pure: no network. The caller does the probing.
 */
@Internal
public final class RoutingCalibrator {

    /** Prefix of the generated probe routing values: {@code kes-probe-0}, {@code kes-probe-1}, ... */
    public static final String PROBE_PREFIX = "kes-probe-";

    /** Candidates in order of preference: when both agree with every probe, the first wins. */
    private static final RoutingFunction[] CANDIDATES = {RoutingFunction.ROUTING_NUM_SHARDS, RoutingFunction.MODULO};

    /** How many candidates to scan per wanted probe when looking for ones that tell the functions apart. */
    private static final int SCAN_FACTOR = 64;

    private RoutingCalibrator() {}

    /**
     * What Elasticsearch answered for one probe routing value: the shards {@code _search_shards}
     * listed. One shard for an ordinary index; {@code routing_partition_size} shards (fewer when some
     * coincide) for a partitioned one.
     */
    public record Probe(String routing, Set<Integer> shards) {
        public Probe {
            if (routing == null) {
                throw new IllegalArgumentException("probe routing must not be null");
            }
            if (shards == null || shards.isEmpty()) {
                throw new IllegalArgumentException("probe [" + routing + "] must name at least one shard");
            }
            shards = Set.copyOf(shards);
        }

        /** A probe answered with a single shard. */
        public static Probe of(String routing, int shard) {
            return new Probe(routing, Set.of(shard));
        }
    }

    /**
     * The routing of the index, with the function that agrees with all {@code probes}; empty when no
     * function does. When both functions agree with every probe (one shard, or
     * {@code routingNumShards == numberOfShards}, where they are the same function, or probes that do
     * not tell them apart) the answer uses {@link RoutingFunction#ROUTING_NUM_SHARDS}. Use
     * {@link #probeValues} to get probes that tell them apart.
     */
    public static Optional<IndexRouting> calibrate(
            String index,
            int numberOfShards,
            int routingNumShards,
            int routingPartitionSize,
            Collection<Probe> probes) {
        for (RoutingFunction function : CANDIDATES) {
            if (!applicable(function, numberOfShards, routingNumShards)) {
                continue; // e.g. routingNumShards not a multiple of numberOfShards: only MODULO is possible
            }
            IndexRouting candidate =
                    new IndexRouting(index, numberOfShards, routingNumShards, routingPartitionSize, function);
            if (agreesWithAll(candidate, probes)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /**
     * {@code count} deterministic probe routing values for an index with these numbers. Where the two
     * functions can differ, the values are chosen among {@code kes-probe-0, kes-probe-1, ...} so that
     * the functions put each of them on different shards (then every probe is a test); when there are
     * not enough such values in the scanned range, or the functions are the same for this index, plain
     * values fill the list.
     */
    public static List<String> probeValues(int count, int numberOfShards, int routingNumShards) {
        if (count < 0) {
            throw new IllegalArgumentException("probe count must not be negative, got " + count);
        }
        Set<String> chosen = new LinkedHashSet<>();
        if (distinguishable(numberOfShards, routingNumShards)) {
            long scan = Math.min((long) count * SCAN_FACTOR, Integer.MAX_VALUE);
            for (int i = 0; i < scan && chosen.size() < count; i++) {
                String value = PROBE_PREFIX + i;
                int hash = Murmur3.hash(value);
                if (RoutingFunction.ROUTING_NUM_SHARDS.shard(hash, numberOfShards, routingNumShards)
                        != RoutingFunction.MODULO.shard(hash, numberOfShards, routingNumShards)) {
                    chosen.add(value);
                }
            }
        }
        for (int i = 0; chosen.size() < count; i++) {
            chosen.add(PROBE_PREFIX + i); // no-op for values already chosen
        }
        return List.copyOf(chosen);
    }

    /** Whether some hash maps to different shards under the two functions for an index with these numbers. */
    static boolean distinguishable(int numberOfShards, int routingNumShards) {
        return numberOfShards > 1
                && routingNumShards != numberOfShards
                && applicable(RoutingFunction.ROUTING_NUM_SHARDS, numberOfShards, routingNumShards);
    }

    private static boolean applicable(RoutingFunction function, int numberOfShards, int routingNumShards) {
        return function != RoutingFunction.ROUTING_NUM_SHARDS
                || (numberOfShards > 0 && routingNumShards > 0 && routingNumShards % numberOfShards == 0);
    }

    private static boolean agreesWithAll(IndexRouting routing, Collection<Probe> probes) {
        for (Probe probe : probes) {
            if (!routing.searchShards(probe.routing()).equals(probe.shards())) {
                return false;
            }
        }
        return true;
    }
}
