package io.kes.connector.routing;

import io.kes.connector.cluster.ClusterMetadataClient;
import io.kes.connector.cluster.IndexMetadata;
import io.kes.connector.routing.Calibrations.Calibration;
import io.kes.connector.routing.TargetNames.Entry;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Knows, per target name (index, alias or data stream), the {@link IndexLayout} of the index that
 * currently takes its writes: which concrete index, its primary terms, and how it routes. It puts
 * together four parts, each holding one thing:
 * <ul>
 *   <li>{@link TargetNames}: the names and their cache; entries expire so that new indices,
 *       rollovers and reshards are picked up, and a failed lookup keeps the last layout read;
 *   <li>{@link Calibrations}, filled by {@link IndexCalibrator}: each concrete index calibrated
 *       once per identity (Elasticsearch tells where a few probe routing values go, and the
 *       routing function that agrees with all of them is kept). Where none does, or the index
 *       routes on document fields, or its default or final ingest pipeline may set
 *       {@code _index}, {@code _routing} or {@code _id}, the layout has no routing: documents then
 *       go in ordinary bulks;
 *   <li>{@link PipelineVerdicts}: whether a pipeline may move documents, read again each minute;
 *       documents that name such a pipeline in their bulk item are predicted "any shard"
 *       ({@link #pipelineMovesDocuments});
 *   <li>{@link UnpredictableIndices}: the indices without routing, counted and warned about once.
 * </ul>
 *
 * <p>Names and calibrations not used for {@link #FORGET_AFTER_MILLIS} are forgotten, so that
 * date-templated index names (one more per day) do not pile up.
 *
 * <p>Given a refresher, a name already known is read again on it ({@link BackgroundReads}) while
 * the layout (or pipeline verdict) read before stays in use, so that a node that stopped answering
 * holds the reads, not the writer: a metadata read waits up to the socket timeout (60 s by
 * default), and the writer calls this on its task thread. A name seen for the first time is read on
 * the caller's thread: there is nothing to use meanwhile. An owner that shares the table between
 * threads under one lock ({@link ShardPredictor}) runs that read without the lock
 * ({@link #firstReadOf}), so that it holds up only the callers that need the name. Nothing here
 * changes but on the caller's thread, under the owner's lock.
 */
@Internal
public final class IndexRoutingTable {

    private static final Logger LOG = LoggerFactory.getLogger(IndexRoutingTable.class);
    static final long FORGET_AFTER_MILLIS = 30 * 60_000;

    /**
     * What one read of a name found, on whichever thread it ran: the index taking its writes (null:
     * none), how long to trust that, and the index's calibration when it had none yet. Nothing in the
     * table changes until the caller's thread installs it.
     */
    record Read(IndexMetadata index, long ttlMillis, IndexCalibrator.Outcome calibration, Exception failure) {}

    private final ClusterMetadataClient metadata;
    private final LongSupplier clock;
    private final TargetNames names = new TargetNames();
    private final Calibrations calibrations = new Calibrations();
    private final PipelineVerdicts pipelines;
    private final IndexCalibrator calibrator;
    private final UnpredictableIndices unpredictable = new UnpredictableIndices();

    @VisibleForTesting
    final BackgroundReads<String, Read> layoutReads;

    private final FirstReads<String, Read> firstReads =
            new FirstReads<>(e -> new Read(null, TargetNames.ERROR_TTL_MILLIS, null, new RuntimeException(e)));

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
        this.pipelines = new PipelineVerdicts(metadata, refresher);
        this.calibrator = new IndexCalibrator(metadata, pipelines);
    }

    /** The layout of {@code name}'s write index, or empty when it does not exist (yet) or was never readable. */
    public Optional<IndexLayout> layoutFor(String name) {
        long now = clock.getAsLong();
        Entry entry = names.get(name);
        if (entry == null) {
            Read first = firstReads.takeDone(name);
            if (first != null) {
                layoutReads.forget(name);
                entry = install(name, first, now, null);
            }
        }
        // Every document of both the router and the writer comes here: while the name's layout is
        // current and no read runs, nothing is allocated (the JIT stops at C1, no escape analysis).
        if (entry == null || entry.expired(now) || layoutReads.anyRunning()) {
            // no entry: never read, or dropped by documentMoved (a read still running then is dropped too)
            Optional<Read> fresh =
                    layoutReads.next(name, entry != null, entry != null && entry.expired(now), () -> read(name));
            if (fresh.isPresent()) {
                entry = install(name, fresh.get(), now, entry);
            }
        }
        entry.lastUsedMillis = now;
        return entry.found;
    }

    /**
     * The first read of {@code name} to run, or wait for, without the owner's lock before
     * {@link #layoutFor} answers for it without reading on the caller's thread; null when the name
     * is known or its first read is done. Under the owner's lock.
     */
    FirstReads.Pending<Read> firstReadOf(String name) {
        return names.get(name) != null ? null : firstReads.pending(name, () -> read(name));
    }

    /** The same for the documents of {@code name} that name ingest pipeline {@code pipeline} (null: none). */
    FirstReads.Pending<?> firstReadOf(String name, String pipeline) {
        FirstReads.Pending<?> first = firstReadOf(name);
        return first != null || pipeline == null ? first : pipelines.firstReadOf(pipeline);
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
        Optional<String> why = pipelines.current(pipeline, clock.getAsLong()).why();
        if (why.isPresent()) {
            unpredictable.mark(
                    layout.index(),
                    () -> why.get() + ", so Elasticsearch may put its documents on other shards" + " than predicted");
            return true;
        }
        return false;
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
        if (calibrations.dropRouting(layout.generation(), clock.getAsLong())) {
            // Forget the layouts predicted with the old calibration: the next lookup reloads the
            // index and takes the new one (a new generation, so buffered predictions are redone).
            names.forgetGeneration(layout.generation());
        }
        unpredictable.mark(
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

    /** Target names currently remembered (for tests of the bound). */
    int size() {
        return names.size();
    }

    /** Reads what {@code name} points to now; runs on any thread and changes nothing in the table. */
    private Read read(String name) {
        try {
            TargetNames.WriteIndex found = TargetNames.resolve(metadata, name);
            IndexMetadata index = found.index();
            if (index == null) {
                return new Read(null, found.ttlMillis(), null, null);
            }
            IndexCalibrator.Outcome calibration =
                    calibrations.due(index, clock.getAsLong()) ? calibrator.calibrate(name, index) : null;
            return new Read(index, found.ttlMillis(), calibration, null);
        } catch (IOException | RuntimeException e) {
            return new Read(null, TargetNames.ERROR_TTL_MILLIS, null, e);
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
            entry = Entry.afterFailedRead(previous, now);
        } else if (read.index() == null) {
            entry = new Entry(null, now + read.ttlMillis(), now);
        } else {
            IndexMetadata index = read.index();
            Calibration calibration = calibrations.of(index);
            if (calibration == null && read.calibration() == null) {
                // calibrated when the read ran, forgotten since: read again, here
                return install(name, read(name), now, previous);
            }
            if (read.calibration() != null && calibrations.due(index, now)) {
                IndexCalibrator.Outcome outcome = read.calibration();
                calibration = calibrations.install(index, outcome, now);
                if (outcome.unpredictableWhy() != null) {
                    unpredictable.mark(index.name(), outcome::unpredictableWhy);
                } else {
                    unpredictable.clear(index.name()); // calibrated again after a pipeline could not be read
                }
            }
            calibration = recheckIndexPipelines(index, calibration, now);
            calibration.lastUsedMillis = now;
            IndexLayout layout =
                    previous != null && previous.layout != null && previous.layout.sameAs(index, calibration)
                            ? previous.layout
                            : new IndexLayout(index, calibration.routing, calibration);
            entry = new Entry(layout, now + read.ttlMillis(), now);
        }
        names.put(name, entry);
        sweep(now);
        return entry;
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
            PipelineVerdicts.Verdict verdict = pipelines.current(pipeline, now);
            Optional<String> why = verdict.why();
            if (why.isPresent()) {
                Calibration replaced = calibrations.withoutRouting(index, verdict.unreadable(), now);
                unpredictable.mark(
                        index.name(),
                        () -> why.get() + " (index.default_pipeline or index.final_pipeline, changed since kes "
                                + "calibrated the index), so Elasticsearch may put its documents on other shards than predicted");
                return replaced;
            }
        }
        return calibration;
    }

    /** Forgets names and calibrations nobody asked for in a while; runs at most once a minute. */
    private void sweep(long now) {
        if (now < nextSweepMillis) {
            return;
        }
        nextSweepMillis = now + 60_000;
        long cutoff = now - FORGET_AFTER_MILLIS;
        names.forgetUnusedSince(cutoff);
        calibrations.forgetUnusedSince(cutoff);
        unpredictable.retainOnly(calibrations.indices());
        pipelines.forgetExpiredBefore(cutoff);
        // a read of a name forgotten meanwhile would never be taken (a name asked again is read anew)
        layoutReads.retainOnly(names.names());
    }
}
