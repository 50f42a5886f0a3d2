package io.kes.connector.routing;

import io.kes.connector.DocumentOperation;
import io.kes.connector.SinkSettings;
import io.kes.connector.cluster.ClusterMetadataClient;
import io.kes.connector.cluster.RestClients;
import io.kes.connector.internal.DaemonThreads;
import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.TaskInfo;
import org.elasticsearch.client.RestClient;

/**
 * Predicts the shard of every document from its index's {@link IndexLayout} (see
 * {@link IndexRoutingTable}): documents routed by id or custom routing get their shard; documents
 * without either (Elasticsearch generates the id), for unpredictable indices, or missing one of
 * the two on a partitioned index get the layout's "any shard"; documents naming an ingest pipeline
 * that may move them are fenced as "any shard" but batched with their routing's shard
 * ({@link IndexLayout#mayMoveFrom}); documents for indices that do not exist yet get
 * {@link PredictedShard#UNKNOWN}.
 *
 * <p>Keyed, the routers and writers of a sink that run in one JVM share one predictor
 * ({@link #openShared}): one table, one metadata client and one read thread, so every index is
 * read, calibrated and refreshed once per JVM, and each document is predicted once, by its router:
 * the prediction crosses the exchange as a {@link #referenceOf reference} its writer
 * {@link #resolve resolves} against the same table (a writer in another JVM, which cannot, predicts
 * again with its own). One table also keeps a writer's buffers on one {@link IndexLayout#generation()}
 * per index, whichever router a document came through. Its methods therefore hold a lock while
 * they touch the table: the tasks' threads all call them (held for a map lookup and a hash, so
 * rarely contended), but never across the first read of a name ({@link FirstReads}). What an acknowledged document needs, when it landed where predicted (nearly
 * all do), is decided from the prediction alone, before the lock, and so is a resolved reference.
 */
@Internal
public final class ShardPredictor implements AutoCloseable {

    /** Landed indices remembered; a daily index adds one a day, a forgotten one is read again. */
    private static final int MAX_LANDED = 256;

    private final IndexRoutingTable table;
    /** Index → its layout when documents first landed there unpredicted ({@link #fenceAs}); the newest few hundred. */
    private final Map<String, IndexLayout> landed = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, IndexLayout> eldest) {
            return size() > MAX_LANDED;
        }
    };

    private final RestClient ownClient;
    private final ExecutorService ownReads;

    /** Predictors shared by a keyed sink's routers and writers in this JVM, by {@link #openShared}'s key. */
    private static final Map<String, ShardPredictor> SHARED = new HashMap<>();
    /** {@link #openShared}'s key of this predictor, or null: it is its opener's alone. */
    private String sharedAs;
    /** The tasks that opened this shared predictor and have not closed it yet. */
    private int users = 1;

    private final PredictionReferences references = new PredictionReferences();

    public ShardPredictor(IndexRoutingTable table) {
        this(table, null, null);
    }

    private ShardPredictor(IndexRoutingTable table, RestClient ownClient, ExecutorService ownReads) {
        this.table = table;
        this.ownClient = ownClient;
        this.ownReads = ownReads;
    }

    /**
     * A predictor of a task of its own (a writer, or the router before the writers): its own
     * metadata client, so that its blocking reads never queue behind bulks, and its own thread
     * {@code readThreadName} for reading known indices again, so that a node that stopped
     * answering holds that read, not the task. {@link #close()} releases both.
     */
    public static ShardPredictor open(SinkSettings settings, String readThreadName) {
        RestClient client = RestClients.create(settings);
        ExecutorService reads = Executors.newSingleThreadExecutor(DaemonThreads.named(readThreadName));
        return new ShardPredictor(
                new IndexRoutingTable(new ClusterMetadataClient(client), System::currentTimeMillis, reads),
                client,
                reads);
    }

    /**
     * The predictor shared by the tasks that pass the same {@code key} (a keyed sink's routers and
     * writers of one attempt, in one JVM), opened by the first of them as {@link #open} does and
     * released by the last one's {@link #close()}. Tasks of another attempt (a restart) get a new
     * one: a restarted writer reads every index anew ({@link #fenceAs} counts on it). Each JVM
     * (TaskManager) has its own.
     */
    public static ShardPredictor openShared(String key, SinkSettings settings, String readThreadName) {
        synchronized (SHARED) {
            ShardPredictor shared = SHARED.get(key);
            if (shared != null) {
                shared.users++;
                return shared;
            }
            shared = open(settings, readThreadName);
            shared.sharedAs = key;
            SHARED.put(key, shared);
            return shared;
        }
    }

    /**
     * {@link #openShared}'s key for the tasks of {@code sink} running as attempt {@code task}: every
     * subtask's (a keyed sink's router and writer tasks restart together, one pipelined region).
     */
    public static String keyOf(String sink, TaskInfo task) {
        return sink + "/" + task.getAttemptNumber();
    }

    /** The metadata client of a predictor from {@link #open}, for its owner's other blocking metadata reads. */
    public RestClient metadataClient() {
        return ownClient;
    }

    /** Closes what {@link #open} made, or, shared ({@link #openShared}), releases this task's use of it. */
    @Override
    public void close() throws IOException {
        if (sharedAs != null) {
            synchronized (SHARED) {
                if (--users > 0) {
                    return;
                }
                SHARED.remove(sharedAs);
            }
        }
        if (ownReads != null) {
            ownReads.shutdownNow();
        }
        if (ownClient != null) {
            ownClient.close();
        }
    }

    /**
     * The shard of {@code op}. The first read of a name this table has not seen (about ten metadata
     * calls, each up to the socket timeout on a slow node), or of an ingest pipeline it names, runs
     * without the lock: only the callers that need it wait for it, the others go on.
     */
    public PredictedShard predict(DocumentOperation op) {
        while (true) {
            FirstReads.Pending<?> first;
            synchronized (this) {
                first = table.firstReadOf(op.index(), op.pipeline());
                if (first == null) {
                    return predictKnown(op);
                }
            }
            first.runOrAwait();
        }
    }

    /** {@code then} under the lock, once {@code name}'s first read (if it has not been read) ran without it. */
    private <T> T afterFirstRead(String name, Supplier<T> then) {
        while (true) {
            FirstReads.Pending<?> first;
            synchronized (this) {
                first = table.firstReadOf(name);
                if (first == null) {
                    return then.get();
                }
            }
            first.runOrAwait();
        }
    }

    private PredictedShard predictKnown(DocumentOperation op) {
        Optional<IndexLayout> found = table.layoutFor(op.index());
        if (found.isEmpty()) {
            return PredictedShard.UNKNOWN;
        }
        IndexLayout layout = found.get();
        int shard = shardOf(layout.routing(), op);
        if (shard < 0) {
            return layout.anyShard();
        }
        // The verdict decides only how the write is fenced, never its buffer: a delete of the same
        // id names no pipeline, and a verdict can change between two writes of one id.
        return op.pipeline() != null && table.pipelineMovesDocuments(op.pipeline(), layout)
                ? layout.mayMoveFrom(shard)
                : layout.shard(shard);
    }

    /** This predictor's identity in its {@link #referenceOf references}: {@link #resolve} takes only its own. */
    public long id() {
        return references.id;
    }

    /** {@code predicted}, one of this predictor's predictions, as a reference ({@link PredictionReferences#referenceOf}). */
    public long referenceOf(PredictedShard predicted) {
        return references.referenceOf(predicted);
    }

    /** The prediction {@code reference} of {@code predictor} stands for, or null ({@link PredictionReferences#resolve}). */
    public PredictedShard resolve(long predictor, long reference) {
        return references.resolve(predictor, reference);
    }

    /**
     * The shard {@code routing} puts {@code op} on, or -1 when that cannot be predicted: no routing
     * (the index routes on document fields, or calibration failed), neither id nor routing
     * (Elasticsearch makes the id), or a partitioned index missing one of the two.
     */
    public static int shardOf(IndexRouting routing, DocumentOperation op) {
        if (routing == null
                || (op.id() == null && op.routing() == null)
                || (routing.partitioned() && (op.id() == null || op.routing() == null))) {
            return PredictedShard.UNKNOWN_SHARD;
        }
        return routing.shardOf(op.id(), op.routing());
    }

    /**
     * The safety net behind the static pipeline check: compares the index Elasticsearch stored an
     * acknowledged document in with the one predicted. A document predicted for one shard that was
     * stored in another index was moved by an ingest pipeline (one changed since kes read it, or
     * one whose effect kes cannot read); its index loses its routing from now on
     * ({@link IndexRoutingTable#documentMoved}). Writes to an alias or data stream that name no
     * pipeline are not judged: their write index may simply have rolled over. A pipeline that
     * changes only {@code _routing} keeps the index and is not visible here.
     *
     * @param storedIn the {@code _index} of the document's bulk item response (null: not given)
     * @return whether the document was moved
     */
    public boolean movedByPipeline(DocumentOperation op, PredictedShard predicted, String storedIn) {
        if (predicted.storedAsPredicted(storedIn)) {
            return false;
        }
        return afterFirstRead(op.index(), () -> judgeMove(op, predicted.layout(), storedIn));
    }

    private boolean judgeMove(DocumentOperation op, IndexLayout layout, String storedIn) {
        if (!op.index().equals(layout.index())) { // an alias or data stream
            if (op.pipeline() == null) {
                return false;
            }
            Optional<IndexLayout> writeIndex = table.layoutFor(op.index());
            if (writeIndex.isPresent() && writeIndex.get().index().equals(storedIn)) {
                return false; // a rollover
            }
        }
        table.documentMoved(layout, storedIn, op.pipeline());
        return true;
    }

    /**
     * How to fence a document acknowledged as stored in {@code storedIn}: as predicted, unless it
     * landed in another index than its prediction's (an ingest pipeline moved it: {@code reroute},
     * {@code date_index_name}, {@code ctx._index}). Then as a document of unknown shard in that
     * index, each shard held against its own primary term as read when the index first appeared to
     * this writer (a read of its layout then, on the task thread without the lock, once per index). Without it, such
     * documents were held against the lowest term they were applied under on every shard, and an
     * index whose shards' terms differ (any failover in its life) failed every checkpoint.
     *
     * <p>The first read comes after the first documents landed there: a failover of their shard
     * between their acknowledgement and that read (a metadata round trip) goes unseen. Every later
     * document was sent after the read, so a failover since is caught. The read is kept (not
     * refreshed) for as long as the index keeps its identity; a writer that fails its checkpoint
     * is restarted and reads it anew, so a failover the fence caught costs one restart, never a loop.
     * Without a layout (the index cannot be read), the document is fenced as predicted, against the
     * lowest term written.
     */
    public PredictedShard fenceAs(PredictedShard predicted, String storedIn) {
        IndexLayout layout = predicted.layout();
        if (storedIn == null || (layout != null && storedIn.equals(layout.index()))) {
            return predicted; // without the lock: nearly every document lands where predicted
        }
        return afterFirstRead(storedIn, () -> fenceAsLandedIn(predicted, storedIn));
    }

    private PredictedShard fenceAsLandedIn(PredictedShard predicted, String storedIn) {
        Optional<IndexLayout> now = table.layoutFor(storedIn);
        if (now.isEmpty() || !now.get().index().equals(storedIn)) {
            return predicted;
        }
        IndexLayout first = landed.get(storedIn);
        if (first == null
                || !first.uuid().equals(now.get().uuid())
                || first.numberOfShards() != now.get().numberOfShards()) {
            first = now.get();
            landed.put(storedIn, first);
        }
        return first.anyShard();
    }

    /** Concrete indices whose routing cannot be predicted; a gauge, read without the lock (a count, stale at worst). */
    public int unpredictableIndices() {
        return table.unpredictableIndices();
    }
}
