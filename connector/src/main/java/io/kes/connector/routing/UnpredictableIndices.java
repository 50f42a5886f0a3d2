package io.kes.connector.routing;

import java.util.HashSet;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The concrete indices whose routing cannot be predicted (they route on document fields, failed
 * calibration, or an ingest pipeline may move their documents), counted for a gauge and warned
 * about once each. Used on the routing table's owner thread only.
 */
final class UnpredictableIndices {

    /** Same logger as before the table was split, so that log settings keep working. */
    private static final Logger LOG = LoggerFactory.getLogger(IndexRoutingTable.class);

    private final Set<String> indices = new HashSet<>();

    /** Counts {@code concrete} unpredictable; {@code why} is worded (it may read index settings) only for the one warning. */
    void mark(String concrete, Supplier<String> why) {
        if (indices.add(concrete)) {
            LOG.warn(
                    "Shard prediction cannot be trusted for index {}: {}. Its writes are fenced on every shard of the index, and "
                            + "those whose shard is not known go in ordinary bulks; nothing is lost.",
                    concrete,
                    why.get());
        }
    }

    /** {@code concrete} was calibrated again with a routing (after a pipeline could not be read). */
    void clear(String concrete) {
        indices.remove(concrete);
    }

    /** Forgets every index but {@code known}: the table forgot their calibrations. */
    void retainOnly(Set<String> known) {
        indices.retainAll(known);
    }

    int size() {
        return indices.size();
    }
}
