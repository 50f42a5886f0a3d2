package io.kes.connector.routing;

import com.fasterxml.jackson.databind.JsonNode;
import io.kes.connector.cluster.ClusterMetadataClient;
import io.kes.connector.cluster.IndexMetadata;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.elasticsearch.client.ResponseException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Knows, per target name (index, alias or data stream), the {@link IndexLayout} of the index that
 * currently takes its writes: which concrete index, its primary terms, and how it routes. Entries
 * expire so that new indices, rollovers and reshards are picked up: a name that does not exist yet
 * is looked up again after a second, an alias or data stream every 10 s, a concrete index every
 * minute. When a lookup fails (Elasticsearch down), the last layout read stays in use: predictions
 * must not flap between "known" and "unknown" while nothing changed.
 *
 * <p>Each concrete index is calibrated once per identity (uuid, shard count,
 * {@code routing_num_shards}, partition size; a re-created or resharded index is calibrated
 * again): Elasticsearch tells where a few probe routing values go, and the routing function that
 * agrees with all of them is kept. Where none does, or the index routes on document fields, the
 * layout has no routing (warned once, counted): documents then go in ordinary bulks. So has an
 * index whose default or final ingest pipeline may set {@code _index}, {@code _routing} or
 * {@code _id} ({@link PipelineRewrites}); documents that name such a pipeline in their bulk item
 * are predicted "any shard" ({@link #pipelineMovesDocuments}).
 *
 * <p>Names and calibrations not used for {@link #FORGET_AFTER_MILLIS} are forgotten, so that
 * date-templated index names (one more per day) do not pile up.
 *
 * <p>Given a refresher, a name already known is read again on it while the layout (or pipeline
 * verdict) read before stays in use, so that a node that stopped answering holds the reads, not
 * the writer: a metadata read waits up to the socket timeout (60 s by default), and the writer
 * calls this on its task thread. A name seen for the first time is read on the caller's thread:
 * there is nothing to use meanwhile.
 */
@Internal
public final class IndexRoutingTable {

    private static final Logger LOG = LoggerFactory.getLogger(IndexRoutingTable.class);
    static final long MISSING_TTL_MILLIS = 1_000;
    static final long ALIAS_TTL_MILLIS = 10_000;
    static final long INDEX_TTL_MILLIS = 60_000;
    static final long ERROR_TTL_MILLIS = 5_000;
    static final long FORGET_AFTER_MILLIS = 30 * 60_000;
    static final int PROBES = 8;

    private static final class Entry {
        final IndexLayout layout;
        final long expiresAtMillis;
        long lastUsedMillis;

        Entry(IndexLayout layout, long expiresAtMillis, long now) {
            this.layout = layout;
            this.expiresAtMillis = expiresAtMillis;
            this.lastUsedMillis = now;
        }
    }

    /** What identifies an index for routing: its calibration holds while these stay the same. */
    private record Identity(
            String uuid,
            String name,
            int shards,
            int routingNumShards,
            int partitionSize,
            boolean routedByDocument,
            List<String> indexPipelines) {
        static Identity of(IndexMetadata m) {
            return new Identity(
                    m.uuid(),
                    m.name(),
                    m.numberOfShards(),
                    m.routingNumShards(),
                    m.routingPartitionSize(),
                    m.routedByDocument(),
                    m.indexPipelines());
        }
    }

    /** A calibration result; the object itself is the layouts' {@link IndexLayout#generation()}. */
    private static final class Calibration {
        final IndexRouting routing;
        /**
         * When to calibrate again: never ({@code Long.MAX_VALUE}) for an answer, soon for a
         * calibration without routing only because an index pipeline could not be read (a 503
         * while the cluster elects a master must not end single-shard bulks until a restart).
         */
        final long recalibrateAtMillis;

        long lastUsedMillis;

        Calibration(IndexRouting routing) {
            this(routing, Long.MAX_VALUE);
        }

        Calibration(IndexRouting routing, long recalibrateAtMillis) {
            this.routing = routing;
            this.recalibrateAtMillis = recalibrateAtMillis;
        }
    }

    /** What a calibration found: the routing, or why there is none; {@code unreadable}: only because a pipeline could not be read. */
    private record CalibrationOutcome(IndexRouting routing, String unpredictableWhy, boolean unreadable) {
        CalibrationOutcome(IndexRouting routing, String unpredictableWhy) {
            this(routing, unpredictableWhy, false);
        }
    }

    /** What a pipeline's definition says: why it may move documents (empty: it does not); {@code unreadable}: it could not be read. */
    private record Rewrite(Optional<String> why, boolean unreadable) {}

    /**
     * What one read of a name found, on whichever thread it ran: the index taking its writes (null:
     * none), how long to trust that, and the index's calibration when it had none yet. Nothing in the
     * table changes until the caller's thread installs it.
     */
    private record Read(IndexMetadata index, long ttlMillis, CalibrationOutcome calibration, Exception failure) {}

    private final ClusterMetadataClient metadata;
    private final LongSupplier clock;
    private final Map<String, Entry> byName = new HashMap<>();
    /** Concurrent: a background read looks up whether its index is calibrated already. */
    private final Map<Identity, Calibration> calibrated = new ConcurrentHashMap<>();

    private final Set<String> unpredictable = new HashSet<>();
    /** Pipeline id → why it may move documents (empty: it does not), and when to look again. */
    private final Map<String, PipelineVerdict> pipelines = new HashMap<>();

    @VisibleForTesting
    final BackgroundReads<String, Read> layoutReads;

    private final BackgroundReads<String, Rewrite> pipelineReads;
    private long nextSweepMillis;

    /** A table that reads on the caller's thread (checks and tools; not the writer). */
    public IndexRoutingTable(ClusterMetadataClient metadata, LongSupplier clock) {
        this(metadata, clock, null);
    }

    /** @param refresher where names already known are read again; null reads on the caller's thread */
    public IndexRoutingTable(ClusterMetadataClient metadata, LongSupplier clock, Executor refresher) {
        this.metadata = metadata;
        this.clock = clock;
        this.layoutReads = new BackgroundReads<>(refresher);
        this.pipelineReads = new BackgroundReads<>(refresher);
    }

    /** The layout of {@code name}'s write index, or empty when it does not exist (yet) or was never readable. */
    public Optional<IndexLayout> layoutFor(String name) {
        long now = clock.getAsLong();
        Entry entry = byName.get(name);
        // no entry: never read, or dropped by documentMoved (a read still running then is dropped too)
        Optional<Read> fresh =
                layoutReads.next(name, entry != null, entry != null && now >= entry.expiresAtMillis, () -> read(name));
        if (fresh.isPresent()) {
            entry = install(name, fresh.get(), now, entry);
        }
        entry.lastUsedMillis = now;
        return Optional.ofNullable(entry.layout);
    }

    /** How {@code name}'s write index routes, or empty when it cannot be predicted (yet). */
    public Optional<IndexRouting> routingFor(String name) {
        return layoutFor(name).map(IndexLayout::routing);
    }

    /** Concrete indices whose routing cannot be predicted (time series, logsdb routing, failed calibration, ingest pipelines that move documents). */
    public int unpredictableIndices() {
        return unpredictable.size();
    }

    /**
     * Whether documents written to {@code layout}'s index through ingest pipeline {@code pipeline}
     * may land elsewhere than predicted; if so the index is counted unpredictable (warned once).
     * Pipelines are looked up once a minute (again in the background, given a refresher); one that
     * cannot be read counts as moving documents.
     */
    public boolean pipelineMovesDocuments(String pipeline, IndexLayout layout) {
        Optional<String> why = verdict(pipeline, clock.getAsLong()).why();
        if (why.isPresent()) {
            markUnpredictable(
                    layout.index(),
                    () -> why.get() + ", so Elasticsearch may put its documents on other shards" + " than predicted");
            return true;
        }
        return false;
    }

    /** Why {@code pipeline} may move documents (empty: it does not), as last read; read again once a minute. */
    private Rewrite verdict(String pipeline, long now) {
        PipelineVerdict verdict = pipelines.get(pipeline);
        Optional<Rewrite> fresh = pipelineReads.next(
                pipeline,
                verdict != null,
                verdict != null && now >= verdict.expiresAtMillis,
                () -> pipelineRewrite(pipeline));
        if (fresh.isPresent()) {
            verdict = new PipelineVerdict(fresh.get(), now + INDEX_TTL_MILLIS);
            pipelines.put(pipeline, verdict);
        }
        return verdict.rewrite;
    }

    /**
     * The calibration of {@code index}, unless one of its default or final pipelines may now move
     * documents (its definition changed since calibration: the verdicts are read again once a
     * minute, as the layout is): then a calibration without routing replaces it, a new generation,
     * so the writers predict again and fence the index on every shard.
     */
    private Calibration recheckIndexPipelines(IndexMetadata index, Calibration calibration, long now) {
        if (calibration.routing == null) {
            return calibration;
        }
        for (String pipeline : index.indexPipelines()) {
            Rewrite rewrite = verdict(pipeline, now);
            Optional<String> why = rewrite.why();
            if (why.isPresent()) {
                Calibration replaced =
                        new Calibration(null, rewrite.unreadable() ? now + ERROR_TTL_MILLIS : Long.MAX_VALUE);
                replaced.lastUsedMillis = now;
                calibrated.put(Identity.of(index), replaced);
                markUnpredictable(
                        index.name(),
                        () -> why.get() + " (index.default_pipeline or index.final_pipeline, changed since kes "
                                + "calibrated the index), so Elasticsearch may put its documents on other shards than predicted");
                return replaced;
            }
        }
        return calibration;
    }

    /**
     * A document predicted for a shard of {@code layout}'s index was stored in {@code landedIn}:
     * something between kes and the shard moved it, most likely an ingest pipeline changed since
     * kes read it ({@link #pipelineMovesDocuments} looks again only each minute) or one whose
     * effect the static check cannot see. From now on the index has no routing, as if the pipeline
     * had been seen at calibration: its documents go in ordinary bulks and are fenced index-wide.
     * Warned once per index, naming the pipeline ({@code pipeline}, or the index's default and
     * final pipelines when the document named none).
     */
    public void documentMoved(IndexLayout layout, String landedIn, String pipeline) {
        String concrete = layout.index();
        Calibration replaced = null;
        for (Map.Entry<Identity, Calibration> e : calibrated.entrySet()) {
            if (e.getValue() == layout.generation() && e.getValue().routing != null) {
                replaced = new Calibration(null);
                replaced.lastUsedMillis = clock.getAsLong();
                e.setValue(replaced);
            }
        }
        if (replaced != null) {
            // Forget the layouts predicted with the old calibration: the next lookup reloads the
            // index and takes the new one (a new generation, so buffered predictions are redone).
            byName.values().removeIf(entry -> entry.layout != null && entry.layout.generation() == layout.generation());
        }
        markUnpredictable(
                concrete,
                () -> "a document written to it "
                        + (pipeline != null
                                ? "through ingest pipeline '" + pipeline + "'"
                                : "through its " + indexPipelinesOf(concrete))
                        + " was stored in index " + landedIn + ", so a pipeline moves documents "
                        + "(changed since kes read it, or beyond what kes reads in it)");
    }

    private String indexPipelinesOf(String concrete) {
        try {
            List<String> ids = metadata.indexPipelines(concrete);
            return ids.isEmpty()
                    ? "index settings (no default or final pipeline now)"
                    : "default or final pipeline " + String.join(", ", ids);
        } catch (IOException | RuntimeException e) {
            return "default or final pipeline (not readable: " + e + ")";
        }
    }

    private record PipelineVerdict(Rewrite rewrite, long expiresAtMillis) {
        Optional<String> why() {
            return rewrite.why();
        }
    }

    private Rewrite pipelineRewrite(String id) {
        try {
            Optional<JsonNode> definition = metadata.pipeline(id);
            if (definition.isEmpty()) {
                // Elasticsearch fails each item naming it: nothing lands anywhere
                return new Rewrite(Optional.empty(), false);
            }
            return new Rewrite(
                    PipelineRewrites.why(id, definition.get(), nested -> {
                        try {
                            return metadata.pipeline(nested);
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    }),
                    false);
        } catch (IOException | RuntimeException e) {
            return new Rewrite(
                    Optional.of(
                            "ingest pipeline '" + id + "' could not be read (" + e + "; read again within a minute)"),
                    true);
        }
    }

    /** Target names currently remembered (for tests of the bound). */
    int size() {
        return byName.size();
    }

    /** Reads what {@code name} points to now; runs on any thread and changes nothing in the table. */
    private Read read(String name) {
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
                return new Read(null, MISSING_TTL_MILLIS, null, null);
            }
            Calibration known = calibrated.get(Identity.of(index));
            CalibrationOutcome calibration =
                    known != null && clock.getAsLong() < known.recalibrateAtMillis ? null : calibrate(name, index);
            return new Read(index, ttl, calibration, null);
        } catch (IOException | RuntimeException e) {
            return new Read(null, ERROR_TTL_MILLIS, null, e);
        }
    }

    /** Makes what a read found the entry of {@code name}, on the thread that owns the table. */
    private Entry install(String name, Read read, long now, Entry previous) {
        Entry entry;
        if (read.failure() != null) {
            LOG.warn(
                    "Could not read routing metadata of '{}' ({}); {} until the next try",
                    name,
                    read.failure().toString(),
                    previous != null && previous.layout != null
                            ? "the last layout read stays in use"
                            : "its documents go in ordinary bulks");
            entry = new Entry(previous == null ? null : previous.layout, now + ERROR_TTL_MILLIS, now);
        } else if (read.index() == null) {
            entry = new Entry(null, now + read.ttlMillis(), now);
        } else {
            IndexMetadata index = read.index();
            Calibration calibration = calibrated.get(Identity.of(index));
            if (calibration == null && read.calibration() == null) {
                // calibrated when the read ran, forgotten since: read again, here
                return install(name, read(name), now, previous);
            }
            if (read.calibration() != null && (calibration == null || now >= calibration.recalibrateAtMillis)) {
                CalibrationOutcome outcome = read.calibration();
                calibration = new Calibration(
                        outcome.routing(), outcome.unreadable() ? now + ERROR_TTL_MILLIS : Long.MAX_VALUE);
                calibrated.put(Identity.of(index), calibration);
                if (outcome.unpredictableWhy() != null) {
                    markUnpredictable(index.name(), outcome::unpredictableWhy);
                } else {
                    unpredictable.remove(index.name()); // calibrated again after a pipeline could not be read
                }
            }
            calibration = recheckIndexPipelines(index, calibration, now);
            calibration.lastUsedMillis = now;
            entry = new Entry(new IndexLayout(index, calibration.routing, calibration), now + read.ttlMillis(), now);
        }
        byName.put(name, entry);
        sweep(now);
        return entry;
    }

    private CalibrationOutcome calibrate(String name, IndexMetadata index) {
        String concrete = index.name();
        try {
            if (!index.routedByDocument()) {
                return new CalibrationOutcome(
                        null, "it routes on document fields (time_series, routing_path or logsdb sort-field routing)");
            }
            for (String pipeline : index.indexPipelines()) {
                Rewrite rewrite = pipelineRewrite(pipeline);
                if (rewrite.why().isPresent()) {
                    return new CalibrationOutcome(
                            null,
                            rewrite.why().get() + " (index.default_pipeline or index.final_pipeline), so Elasticsearch"
                                    + " may put its documents on other shards than predicted",
                            rewrite.unreadable());
                }
            }
            List<RoutingCalibrator.Probe> probes = new ArrayList<>();
            if (index.numberOfShards() > 1) {
                for (String routing :
                        RoutingCalibrator.probeValues(PROBES, index.numberOfShards(), index.routingNumShards())) {
                    probes.add(new RoutingCalibrator.Probe(routing, metadata.shardsForRouting(concrete, routing)));
                }
            }
            Optional<IndexRouting> routing = RoutingCalibrator.calibrate(
                    concrete, index.numberOfShards(), index.routingNumShards(), index.routingPartitionSize(), probes);
            if (routing.isEmpty()) {
                return new CalibrationOutcome(
                        null, "no known routing function matches where Elasticsearch puts probe values " + probes);
            }
            LOG.info(
                    "Routing of {} (written as '{}'): {} shards, routing_num_shards {}, partition size {}, {}",
                    concrete,
                    name,
                    index.numberOfShards(),
                    index.routingNumShards(),
                    index.routingPartitionSize(),
                    routing.get().function());
            return new CalibrationOutcome(routing.get(), null);
        } catch (ResponseException e) {
            if (e.getResponse().getStatusLine().getStatusCode() == 403) {
                // The layout (primary terms from _cluster/state) still serves: the fence then holds
                // each shard to its own term. Without it, writes would be held against the lowest
                // term written, and an index whose shards' terms differ would fail every checkpoint.
                return new CalibrationOutcome(
                        null,
                        "kes's user or API key may not read its routing (HTTP 403 on "
                                + "_search_shards: grant the index privilege 'view_index_metadata' for single-shard bulks)");
            }
            throw new RuntimeException("calibrating " + concrete + " failed: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new RuntimeException("calibrating " + concrete + " failed: " + e.getMessage(), e);
        }
    }

    /** Forgets names and calibrations nobody asked for in a while; runs at most once a minute. */
    private void sweep(long now) {
        if (now < nextSweepMillis) {
            return;
        }
        nextSweepMillis = now + 60_000;
        byName.values().removeIf(e -> now - e.lastUsedMillis > FORGET_AFTER_MILLIS);
        calibrated.entrySet().removeIf(e -> now - e.getValue().lastUsedMillis > FORGET_AFTER_MILLIS);
        Set<String> known = new HashSet<>();
        calibrated.keySet().forEach(identity -> known.add(identity.name()));
        unpredictable.retainAll(known);
        // not the verdicts merely expired: one being read again stays in use until the read is done
        pipelines.values().removeIf(v -> now - v.expiresAtMillis > FORGET_AFTER_MILLIS);
        // a read of a name forgotten meanwhile would never be taken (a name asked again is read anew)
        layoutReads.retainOnly(byName.keySet());
        pipelineReads.retainOnly(pipelines.keySet());
    }

    /** Counts the index unpredictable; {@code why} is worded (it may read index settings) only for the one warning. */
    private void markUnpredictable(String concrete, java.util.function.Supplier<String> why) {
        if (unpredictable.add(concrete)) {
            LOG.warn(
                    "Shard prediction cannot be trusted for index {}: {}. Its writes are fenced on every shard of the index, and "
                            + "those whose shard is not known go in ordinary bulks; nothing is lost.",
                    concrete,
                    why.get());
        }
    }
}
