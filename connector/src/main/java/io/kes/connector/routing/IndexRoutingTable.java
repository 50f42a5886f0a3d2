package io.kes.connector.routing;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Knows, per target name (index, alias or data stream), how Elasticsearch routes documents in the
 * index that currently takes its writes. Entries expire so that new indices, rollovers and
 * reshards are picked up: a name that does not exist yet is looked up again after a second, an
 * alias or data stream every 10 s, a concrete index every minute. Each concrete index is
 * calibrated once: Elasticsearch tells where a few probe routing values go, and the routing
 * function that agrees with all of them is kept. Where none does, or the index routes on document
 * fields, grouping is off for that index (warned once, counted): a wrong prediction would cost
 * speed, not data, but there is no point paying for it.
 */
public final class IndexRoutingTable {

    private static final Logger LOG = LoggerFactory.getLogger(IndexRoutingTable.class);
    static final long MISSING_TTL_MILLIS = 1_000;
    static final long ALIAS_TTL_MILLIS = 10_000;
    static final long INDEX_TTL_MILLIS = 60_000;
    static final long ERROR_TTL_MILLIS = 5_000;
    static final int PROBES = 8;

    private record Entry(IndexRouting routing, long expiresAtMillis) {}

    private final ClusterMetadataClient metadata;
    private final LongSupplier clock;
    private final Map<String, Entry> byName = new HashMap<>();
    /** Calibration results per concrete index; an empty Optional means "not predictable". */
    private final Map<String, Optional<IndexRouting>> calibrated = new HashMap<>();
    private final Set<String> unpredictable = new HashSet<>();

    public IndexRoutingTable(ClusterMetadataClient metadata, LongSupplier clock) {
        this.metadata = metadata;
        this.clock = clock;
    }

    /** How {@code name}'s write index routes, or empty when it cannot be predicted (yet). */
    public Optional<IndexRouting> routingFor(String name) {
        long now = clock.getAsLong();
        Entry entry = byName.get(name);
        if (entry == null || now >= entry.expiresAtMillis) {
            entry = load(name, now);
            byName.put(name, entry);
        }
        return Optional.ofNullable(entry.routing);
    }

    /** Concrete indices whose routing cannot be predicted (time series, logsdb routing, failed calibration). */
    public int unpredictableIndices() {
        return unpredictable.size();
    }

    private Entry load(String name, long now) {
        try {
            Map<String, IndexMetadata> found = metadata.indices(List.of(name));
            IndexMetadata index = found.get(name);
            long ttl = INDEX_TTL_MILLIS;
            if (index == null && !found.isEmpty()) {
                ttl = ALIAS_TTL_MILLIS; // an alias or data stream: its write index can roll over
                Optional<String> writeIndex = metadata.writeIndex(name);
                if (writeIndex.isPresent()) {
                    index = found.get(writeIndex.get());
                    if (index == null) {
                        index = metadata.indices(List.of(writeIndex.get())).get(writeIndex.get());
                    }
                }
            }
            if (index == null) {
                return new Entry(null, now + MISSING_TTL_MILLIS);
            }
            return new Entry(calibrated.computeIfAbsent(index.name(), k -> calibrate(name, k, found)).orElse(null), now + ttl);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Could not read routing metadata of '{}' ({}); its documents go in ordinary bulks until the next try", name, e.toString());
            return new Entry(null, now + ERROR_TTL_MILLIS);
        }
    }

    private Optional<IndexRouting> calibrate(String name, String concrete, Map<String, IndexMetadata> known) {
        IndexMetadata index = known.get(concrete);
        try {
            if (index == null) {
                index = metadata.indices(List.of(concrete)).get(concrete);
            }
            if (index == null) {
                return Optional.empty();
            }
            if (!index.routedByDocument()) {
                markUnpredictable(concrete, "it routes on document fields (time_series, routing_path or logsdb sort-field routing)");
                return Optional.empty();
            }
            List<RoutingCalibrator.Probe> probes = new ArrayList<>();
            if (index.numberOfShards() > 1) {
                for (String routing : RoutingCalibrator.probeValues(PROBES, index.numberOfShards(), index.routingNumShards())) {
                    probes.add(new RoutingCalibrator.Probe(routing, metadata.shardsForRouting(concrete, routing)));
                }
            }
            Optional<IndexRouting> routing = RoutingCalibrator.calibrate(concrete, index.numberOfShards(),
                    index.routingNumShards(), index.routingPartitionSize(), probes);
            if (routing.isEmpty()) {
                markUnpredictable(concrete, "no known routing function matches where Elasticsearch puts probe values " + probes);
            } else {
                LOG.info("Routing of {} (written as '{}'): {} shards, routing_num_shards {}, partition size {}, {}", concrete, name,
                        index.numberOfShards(), index.routingNumShards(), index.routingPartitionSize(), routing.get().function());
            }
            return routing;
        } catch (IOException e) {
            throw new RuntimeException("calibrating " + concrete + " failed: " + e.getMessage(), e);
        }
    }

    private void markUnpredictable(String concrete, String why) {
        if (unpredictable.add(concrete)) {
            LOG.warn("Shard grouping is off for index {}: {}. Its documents go in ordinary bulks; nothing is lost.", concrete, why);
        }
    }
}
