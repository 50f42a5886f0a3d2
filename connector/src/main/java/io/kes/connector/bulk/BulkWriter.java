package io.kes.connector.bulk;

import io.kes.connector.DocumentOperation;
import io.kes.connector.Durability;
import io.kes.connector.FailedOperation;
import io.kes.connector.FailureHandler;
import io.kes.connector.SinkSettings;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.zip.GZIPOutputStream;
import io.kes.connector.bulk.Epochs.Epoch;
import io.kes.connector.internal.NonRecoverable;
import io.kes.connector.internal.TargetNodeSelector;
import io.kes.connector.routing.ShardPrediction;
import io.kes.connector.routing.ShardPredictor;
import org.apache.http.HttpHost;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.metrics.MetricGroup;
import org.apache.http.entity.ContentType;
import org.apache.http.nio.entity.NByteArrayEntity;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.RequestOptions;
import org.elasticsearch.client.Response;
import org.elasticsearch.client.ResponseException;
import org.elasticsearch.client.ResponseListener;
import org.elasticsearch.client.RestClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Predicts each document's shard, buffers documents per (index, shard) slot and sends each full
 * buffer as one single-shard {@code _bulk}, asynchronously, with at most {@code bulk.max_in_flight}
 * bulks open.
 *
 * <p>Per-id order: Elasticsearch applies the writes of one document id in the order this writer
 * received them. An id is buffered in one slot at a time ({@link SlotTable}); a bulk waits while
 * one of its ids has an earlier write in flight, retries included ({@link InFlightIds}); a retried
 * write takes every later write of its id in the same bulk with it. Together with the sink's
 * topology (the writer runs in its input's subtask: a Kafka partition's records stay in one writer,
 * in offset order) and the replay from the last checkpoint, every id ends with its last write.
 *
 * <p>Checkpoints do not stop the writes. At a barrier, {@link #checkpoint()} sends every buffer
 * and closes the current {@link Epochs epoch}; the future it returns completes once every bulk of
 * that epoch (and of older ones) is done and, with the checkpoint fence, Elasticsearch made them
 * durable. The caller waits on that future off the task thread (the asynchronous part of the
 * checkpoint), and documents after the barrier keep flowing meanwhile. Only the end of a bounded
 * input waits on the task thread ({@link #drainAndMakeDurable()}).
 *
 * <p>Threading: requests complete on the REST client's I/O threads, which only parse the response
 * and hand it to the task's mailbox; every state change (buffers, in-flight count, epochs,
 * retries, metrics, failure handling) happens on the task thread. Waiting (backpressure, end of
 * input) is {@link MailboxExecutor#yield()}, which runs those hand-overs meanwhile. The fence and
 * the failure handler's flush run on the {@link EpochFinisher}'s thread.
 *
 * <p>Failures: rejected (429) and unavailable (5xx, connection) writes are retried with backoff,
 * only the items that failed, for at most {@code retry.max_time}; then the job fails. Writes that
 * can never succeed go to the {@link FailureHandler} at once. The first asynchronous failure is
 * kept and rethrown from {@link #write}, and fails every checkpoint still waiting, so a checkpoint
 * never completes over a lost write.
 */
public final class BulkWriter implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BulkWriter.class);
    private static final ContentType NDJSON = ContentType.create("application/x-ndjson");
    /** A buffer starts at most this big unless its slot's last bulk was bigger and the budget allows. */
    private static final int SMALL_BUFFER = 64 * 1024;
    private static final long FORGET_IDLE_TARGETS_MILLIS = 10 * 60_000;

    private final SinkSettings settings;
    private final RestClient client;
    private final TargetNodeSelector selector;
    private final PrimaryNodes primaryNodes;
    private final ShardPredictor predictor;
    private final MailboxExecutor mailbox;
    private final ProcessingTimeService time;
    private final FailureHandler failureHandler;
    private final Backoff backoff;
    private final BulkMetrics metrics;
    private final Epochs epochs = new Epochs();
    private final EpochFinisher finisher;
    private final SlotTable slots;
    private final InFlightIds inFlightIds = new InFlightIds();
    private final List<Slot> superseded = new ArrayList<>();
    /** Buffers may start at their slot's last size while all of them together stay below this. */
    private final long bufferBudget;
    private final RequestOptions requestOptions;

    private int inFlight;
    private int bufferedDocs;
    private long bufferCapacity;
    /** How many sends are waiting for a permit or for an earlier write of one of their ids. */
    private int waitingSends;
    private boolean lingerTimerArmed;
    private long lastForgetMillis;
    private RuntimeException asyncFailure;
    private boolean closed;

    /**
     * @param client    built with {@code selector} as its node selector ({@link io.kes.connector.internal.RestClients#create})
     * @param predictor predicts each document's shard; reads index metadata through its own client
     */
    public BulkWriter(SinkSettings settings, RestClient client, TargetNodeSelector selector, ShardPredictor predictor,
                      MailboxExecutor mailbox, ProcessingTimeService time, MetricGroup metricGroup, int subtaskIndex,
                      FailureHandler failureHandler, String opaqueId) throws Exception {
        this.settings = settings;
        this.client = client;
        this.selector = selector;
        this.predictor = predictor;
        // Behind a path prefix the cluster sits behind a proxy: its nodes' own addresses are not the way in.
        this.primaryNodes = settings.primaryNodeRouting && settings.shardGrouping && settings.pathPrefix == null
                ? new PrimaryNodes(client, selector, "kes-primary-nodes-" + subtaskIndex) : null;
        this.mailbox = mailbox;
        this.time = time;
        this.failureHandler = failureHandler;
        this.backoff = new Backoff(settings.initialBackoff, settings.maxBackoff);
        this.metrics = new BulkMetrics(metricGroup, this);
        this.slots = new SlotTable(settings.shardGrouping);
        this.bufferBudget = 16 * settings.maxBytes;
        RequestOptions.Builder options = RequestOptions.DEFAULT.toBuilder();
        options.addHeader("X-Opaque-Id", opaqueId); // EarlierWrites finds this job's bulks by it
        if (settings.gzip) {
            options.addHeader("Content-Encoding", "gzip");
        }
        this.requestOptions = options.build();
        CheckpointFence fence = settings.durability == Durability.CHECKPOINT_FENCE
                ? new CheckpointFence(client, backoff, settings.maxRetryTime, settings.fenceSyncWait) : null;
        this.finisher = new EpochFinisher(fence, failureHandler, metrics, this::wakeTaskThread, "kes-checkpoint-fence-" + subtaskIndex);
        failureHandler.open(subtaskIndex);
    }

    public void write(DocumentOperation op) throws InterruptedException {
        rethrowAsyncFailure();
        ShardPrediction prediction = predictor.predict(op);
        if (!prediction.knowsShard()) {
            metrics.docsWithUnknownShard.inc();
        }
        Slot slot = slots.slotFor(op.index(), prediction, superseded);
        if (!superseded.isEmpty()) {
            sendSuperseded();
        }
        if (slot.body == null) {
            int capacity = initialCapacity(slot);
            slot.body = new BulkBody(capacity);
            slot.capacity = capacity;
            bufferCapacity += capacity;
            slot.firstDocAtMillis = time.getCurrentProcessingTime();
            slots.nonEmpty.add(slot);
            armLingerTimer();
        }
        slot.body.add(op, prediction);
        bufferedDocs++;
        if (slot.body.itemCount() >= settings.maxDocs || slot.body.sizeInBytes() >= settings.maxBytes) {
            slots.nonEmpty.remove(slot);
            send(slot);
        }
    }

    /** The buffers of a target's old layout go out before anything predicted with its new one. */
    private void sendSuperseded() throws InterruptedException {
        List<Slot> first = new ArrayList<>(superseded);
        superseded.clear();
        for (Slot slot : first) {
            send(slot);
        }
    }

    /**
     * Bodies of a busy slot come out about the same size each time; starting at the last size plus
     * some slack avoids growing a ~1 MB array by doubling (copying) it several times per bulk. With
     * many slots (many shards, or date-named indices) that would reserve a bulk's size per slot, so
     * beyond a budget of 16 bulks a buffer starts small and grows only as far as it is filled.
     */
    private int initialCapacity(Slot slot) {
        long hint = slot.lastBodyBytes > 0 ? slot.lastBodyBytes + slot.lastBodyBytes / 8 : SMALL_BUFFER;
        hint = Math.min(hint, settings.maxBytes + SMALL_BUFFER);
        return (int) (bufferCapacity + hint <= bufferBudget ? hint : Math.min(hint, SMALL_BUFFER));
    }

    /**
     * Sends the slot's buffer. Waits first (backpressure) while all in-flight permits are taken, or
     * while a document of this buffer still has an earlier write in flight: that one must be
     * applied first ({@link InFlightIds}).
     */
    private void send(Slot slot) throws InterruptedException {
        bufferCapacity -= slot.capacity;
        BulkBody body = slot.take();
        bufferedDocs -= body.itemCount();
        waitingSends++;
        try {
            while (inFlight >= settings.maxInFlight || inFlightIds.anyHeld(body)) {
                mailbox.yield();
                rethrowAsyncFailure();
            }
        } finally {
            waitingSends--;
        }
        inFlight++;
        inFlightIds.holdAll(body);
        Batch batch = new Batch(body, slot, epochs.bulkSent(), System.nanoTime());
        metrics.docsPerBulk.update(body.itemCount());
        metrics.shardsPerBulk.update(distinctShards(body));
        dispatch(batch);
    }

    /** Shards the body's documents were predicted for; 0 when some are not predicted. */
    private static int distinctShards(BulkBody body) {
        ShardPrediction first = body.prediction(0);
        boolean single = first.knowsShard();
        for (int i = 1; single && i < body.itemCount(); i++) {
            single = body.prediction(i) == first;
        }
        if (single) {
            return 1;
        }
        Set<ShardPrediction> shards = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (int i = 0; i < body.itemCount(); i++) {
            if (!body.prediction(i).knowsShard()) {
                return 0;
            }
            shards.add(body.prediction(i));
        }
        return shards.size();
    }

    /**
     * One bulk's items, from the first send until every item succeeded or failed for good. Its body
     * shrinks to the items still to retry; a bulk the node found too large (413) is sent in parts,
     * one after the other, so its items keep their order.
     */
    private static final class Batch {
        final Slot slot;
        /** The checkpoint interval it was first sent in; its retries stay there. */
        final Epoch epoch;
        final long firstSentNanos;
        BulkBody body;
        /** Parts still to send after {@link #body} (a bulk split after a 413). */
        final ArrayDeque<BulkBody> laterParts = new ArrayDeque<>();
        int attempt;
        long sentNanos;

        Batch(BulkBody body, Slot slot, Epoch epoch, long firstSentNanos) {
            this.body = body;
            this.slot = slot;
            this.epoch = epoch;
            this.firstSentNanos = firstSentNanos;
        }

        int itemsLeft() {
            int n = body.itemCount();
            for (BulkBody part : laterParts) {
                n += part.itemCount();
            }
            return n;
        }
    }

    private void dispatch(Batch batch) {
        Request request = new Request("POST", "/_bulk");
        request.addParameter("filter_path", BulkResponse.FILTER_PATH);
        byte[] bytes = batch.body.array();
        int length = batch.body.sizeInBytes();
        if (settings.gzip) {
            bytes = gzip(bytes, length);
            length = bytes.length;
        }
        request.setOptions(requestOptions);
        // An NIO entity hands the whole body to the socket: a plain ByteArrayEntity goes through a
        // 4 KB copy buffer, one event-loop turn and one write syscall per 4 KB (~250 per bulk).
        request.setEntity(new NByteArrayEntity(bytes, 0, length, NDJSON));
        metrics.bulksSent.inc();
        metrics.bytesOut.inc(length);
        batch.sentNanos = System.nanoTime();
        BulkBody sent = batch.body;
        int expectedItems = sent.itemCount();
        ResponseListener listener = new ResponseListener() {
            @Override
            public void onSuccess(Response response) {
                BulkResponse parsed;
                try (InputStream in = response.getEntity().getContent()) {
                    parsed = BulkResponse.parse(in, expectedItems);
                } catch (Exception e) {
                    onFailure(e);
                    return;
                }
                toMailbox(() -> onResponse(batch, sent, parsed), "kes bulk response");
            }

            @Override
            public void onFailure(Exception exception) {
                toMailbox(() -> onRequestFailure(batch, sent, exception), "kes bulk failure");
            }
        };
        HttpHost primary = primaryNodes == null || batch.slot.index == null ? null : primaryNodes.primaryOf(batch.slot.index, batch.slot.shard);
        if (primary == null) {
            client.performRequestAsync(request, listener);
            return;
        }
        metrics.bulksToPrimaryNode.inc();
        try {
            selector.sendTo(primary, () -> client.performRequestAsync(request, listener));
        } catch (Exception cannotHappen) {
            throw new IllegalStateException(cannotHappen); // performRequestAsync reports failures to the listener
        }
    }

    private void toMailbox(Runnable action, String description) {
        try {
            mailbox.execute(action::run, description);
        } catch (RuntimeException rejectedAfterClose) {
            if (!closed) {
                throw rejectedAfterClose;
            }
        }
    }

    /** A no-op mail: a task thread waiting in {@link MailboxExecutor#yield()} looks at its futures again. */
    private void wakeTaskThread() {
        try {
            mailbox.execute(() -> { }, "kes epoch finished");
        } catch (RuntimeException mailboxClosed) {
            // the task is shutting down; nobody waits any more
        }
    }

    private void onResponse(Batch batch, BulkBody sent, BulkResponse response) {
        metrics.bulkLatencyMillis.update((System.nanoTime() - batch.sentNanos) / 1_000_000);
        int[] retry = null;
        int retries = 0;
        Set<String> retriedIds = null;
        List<FailedOperation> permanent = null;
        String retryCause = null;
        int succeeded = 0;
        for (int i = 0; i < response.size(); i++) {
            DocumentOperation op = sent.operation(i);
            int status = response.status[i];
            ItemOutcome outcome = ItemOutcome.of(status, response.errorType[i], op.opType());
            // Once a write of an id is retried, every later write of that id in this bulk is sent
            // again after it, even one that succeeded: otherwise the retry would overwrite it.
            if (retriedIds != null && op.id() != null && retriedIds.contains(idKey(op))) {
                outcome = ItemOutcome.RETRY;
            } else if (outcome == ItemOutcome.RETRY) {
                retryCause = ItemOutcome.retryCause(status, response.errorType[i]) + " (" + status + " "
                        + response.errorType[i] + ": " + response.errorReason[i] + ")";
                if (status == 429 || "es_rejected_execution_exception".equals(response.errorType[i])) {
                    metrics.retriesRejected.inc();
                } else {
                    metrics.retriesUnavailable.inc();
                }
            }
            switch (outcome) {
                case SUCCESS -> {
                    succeeded++;
                    if (status == 409) {
                        metrics.replaysAccepted.inc();
                    }
                    batch.epoch.acknowledged.record(response.index[i] != null ? response.index[i] : op.index(), sent.prediction(i),
                            response.appliedTerm(i, op.opType()));
                    inFlightIds.release(op);
                }
                case RETRY -> {
                    if (retry == null) {
                        retry = new int[response.size()];
                    }
                    retry[retries++] = i;
                    if (op.id() != null) {
                        if (retriedIds == null) {
                            retriedIds = new HashSet<>();
                        }
                        retriedIds.add(idKey(op));
                    }
                }
                case PERMANENT -> {
                    if (permanent == null) {
                        permanent = new ArrayList<>();
                    }
                    permanent.add(new FailedOperation(op, status, response.errorType[i], response.errorReason[i]));
                    inFlightIds.release(op);
                }
            }
        }
        metrics.docsOut.inc(succeeded);
        if (permanent != null) {
            handOver(permanent);
        }
        if (retry != null) {
            BulkBody again = new BulkBody(sent.sizeInBytes());
            for (int r = 0; r < retries; r++) {
                again.addEncoded(sent, retry[r]);
            }
            batch.body = again;
            scheduleRetry(batch, retryCause);
        } else {
            partDone(batch);
        }
    }

    private static String idKey(DocumentOperation op) {
        return op.index() + '\u0000' + op.id();
    }

    private void handOver(List<FailedOperation> permanent) {
        metrics.permanentFailures.inc(permanent.size());
        try {
            failureHandler.onFailures(permanent);
        } catch (Exception e) {
            failAsync(e instanceof RuntimeException re ? re : new RuntimeException(e.getMessage(), e));
        }
    }

    /** The current part is over; the next part of a split bulk goes out now, or the bulk is done. */
    private void partDone(Batch batch) {
        BulkBody next = batch.laterParts.poll();
        if (next == null) {
            done(batch);
            return;
        }
        batch.body = next;
        batch.attempt = 0;
        dispatch(batch);
    }

    /** The batch is over: every item succeeded, went to the failure handler, or failed the job. */
    private void done(Batch batch) {
        inFlight--;
        finishDrained(epochs.bulkDone(batch.epoch));
    }

    /** The job fails: what is left of the batch is no longer in flight (a restart replays it). */
    private void giveUp(Batch batch, RuntimeException failure) {
        failAsync(failure);
        inFlightIds.releaseAll(batch.body);
        batch.laterParts.forEach(inFlightIds::releaseAll);
        batch.laterParts.clear();
        done(batch);
    }

    private void finishDrained(List<Epoch> drained) {
        for (Epoch epoch : drained) {
            if (asyncFailure != null) {
                epoch.durable.completeExceptionally(asyncFailure);
            } else {
                finisher.finish(epoch);
            }
        }
    }

    private void onRequestFailure(Batch batch, BulkBody sent, Exception exception) {
        int status = exception instanceof ResponseException re ? re.getResponse().getStatusLine().getStatusCode() : -1;
        if (status == 413) {
            tooLarge(batch, sent, exception);
            return;
        }
        if (NonRecoverable.isNonRecoverableStatus(status)) {
            giveUp(batch, NonRecoverable.error("Elasticsearch refused kes's bulk with HTTP " + status + " ("
                    + (status == 401 ? "the credentials are wrong or expired: check elasticsearch.username/password or elasticsearch.api_key"
                    : "the user or API key lacks a privilege: kes needs the index privileges 'create_doc', 'index', 'delete' (or 'write') "
                    + "on " + batch.slot.index) + "): " + exception.getMessage(), exception));
            return;
        }
        boolean retryable = status == -1 || status == 429 || status >= 500;
        if (!retryable) {
            giveUp(batch, new IllegalStateException("Elasticsearch refused a whole bulk of " + sent.itemCount()
                    + " documents (" + batch.slot + ") with HTTP " + status + ": " + exception.getMessage(), exception));
            return;
        }
        metrics.requestRetries.inc();
        scheduleRetry(batch, status == -1 ? "connection error (" + exception + ")" : "HTTP " + status);
    }

    /**
     * HTTP 413: the body is larger than the node's {@code http.max_content_length}. Split in halves,
     * sent one after the other (the items keep their order); a single document that is still too
     * large can never be written and goes to the failure handler.
     */
    private void tooLarge(Batch batch, BulkBody sent, Exception exception) {
        if (sent.itemCount() > 1) {
            int half = sent.itemCount() / 2;
            batch.laterParts.addFirst(sent.slice(half, sent.itemCount()));
            batch.body = sent.slice(0, half);
            metrics.bulksSplit.inc();
            LOG.warn("Elasticsearch refused a bulk of {} bytes as too large (HTTP 413, {}); sending it in parts."
                    + " Lower bulk.max_bytes below the node's http.max_content_length.", sent.sizeInBytes(), batch.slot);
            dispatch(batch);
            return;
        }
        DocumentOperation op = sent.operation(0);
        inFlightIds.release(op);
        handOver(List.of(new FailedOperation(op, 413, "request_entity_too_large", "the document alone (" + sent.sizeInBytes()
                + " bytes with its action line) is larger than the node's http.max_content_length: " + exception.getMessage())));
        partDone(batch);
    }

    private void scheduleRetry(Batch retry, String cause) {
        retry.attempt++;
        long elapsedMillis = (System.nanoTime() - retry.firstSentNanos) / 1_000_000;
        if (elapsedMillis >= settings.maxRetryTime.toMillis()) {
            giveUp(retry, new IllegalStateException(retry.itemsLeft() + " documents (" + retry.slot + ") still failed after "
                    + retry.attempt + " attempts over " + elapsedMillis + " ms, last cause: " + cause
                    + ". Elasticsearch is overloaded or unavailable; the job restarts from its last checkpoint."
                    + " Raise retry.max_time to wait longer, or lower bulk.max_in_flight."));
            return;
        }
        long delay = backoff.delayMillis(retry.attempt - 1);
        if (retry.attempt == 1 || retry.attempt % 10 == 0) {
            LOG.warn("Retrying {} documents ({}) in {} ms, attempt {}: {}", retry.body.itemCount(), retry.slot, delay,
                    retry.attempt, cause);
        }
        time.registerTimer(time.getCurrentProcessingTime() + delay, t -> {
            if (!closed) {
                dispatch(retry);
            }
        });
    }

    private void failAsync(RuntimeException failure) {
        if (asyncFailure == null) {
            asyncFailure = failure;
        } else if (asyncFailure != failure) {
            asyncFailure.addSuppressed(failure);
        }
    }

    private void rethrowAsyncFailure() {
        if (asyncFailure != null) {
            throw asyncFailure;
        }
    }

    private void armLingerTimer() {
        if (!lingerTimerArmed) {
            lingerTimerArmed = true;
            time.registerTimer(time.getCurrentProcessingTime() + settings.linger.toMillis(), this::onLingerTimer);
        }
    }

    private void onLingerTimer(long now) throws InterruptedException {
        lingerTimerArmed = false;
        if (closed) {
            return;
        }
        if (waitingSends > 0) {
            // A send waits in yield() and this timer runs inside it: sending from here could pass
            // the waiting body, whose documents are older. Look again later.
            armLingerTimer();
            return;
        }
        long lingerMillis = settings.linger.toMillis();
        List<Slot> due = new ArrayList<>();
        for (Slot slot : slots.nonEmpty) {
            if (slot.firstDocAtMillis + lingerMillis <= now) {
                due.add(slot);
            }
        }
        slots.nonEmpty.removeAll(due);
        for (Slot slot : due) {
            send(slot);
        }
        if (!slots.nonEmpty.isEmpty()) {
            armLingerTimer();
        }
    }

    /**
     * A checkpoint barrier: sends every buffer and closes the current epoch. Returns at once (after
     * backpressure, if all in-flight permits are taken); the future completes when every bulk sent
     * before this barrier is done, retries included, and, with {@link Durability#CHECKPOINT_FENCE},
     * Elasticsearch made them durable with no primary failover in between. It fails with the first
     * write failure, or the fence's. Wait on it off the task thread.
     */
    public CompletableFuture<Void> checkpoint() throws InterruptedException {
        rethrowAsyncFailure();
        List<Slot> pending = new ArrayList<>(slots.nonEmpty);
        slots.nonEmpty.clear();
        for (Slot slot : pending) {
            send(slot);
        }
        long now = time.getCurrentProcessingTime();
        if (now - lastForgetMillis > FORGET_IDLE_TARGETS_MILLIS) {
            lastForgetMillis = now;
            slots.forgetIdleTargets();
        }
        Epoch closing = epochs.current();
        CompletableFuture<Void> durable = closing.durable;
        long barrierNanos = System.nanoTime();
        durable.whenComplete((ok, failure) -> {
            metrics.checkpointWaitMillis.update((System.nanoTime() - barrierNanos) / 1_000_000);
            if (failure != null) {
                failTask(failure);
            }
        });
        finishDrained(epochs.closeCurrent());
        return durable;
    }

    /**
     * Writes that may be lost must be replayed now, not just keep their checkpoint from completing:
     * a declined checkpoint alone would, with tolerated checkpoint failures, leave the job running
     * without progress. Failing the task restarts it from the last completed checkpoint, as a
     * failed write does.
     */
    private void failTask(Throwable failure) {
        Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        try {
            mailbox.execute(() -> {
                throw cause instanceof Exception e ? e : new IllegalStateException(cause);
            }, "kes: writes of a checkpoint are not safe");
        } catch (RuntimeException mailboxClosed) {
            // the task is already going down
        }
    }

    /**
     * The end of a bounded input: {@link #checkpoint()}, then waits for it on the task thread, so
     * the task only finishes with every write acknowledged and durable. Rethrows a failure.
     */
    public void drainAndMakeDurable() throws Exception {
        CompletableFuture<Void> durable = checkpoint();
        while (!durable.isDone()) {
            mailbox.yield(); // responses and the finisher's wake-up arrive as mails
        }
        try {
            durable.get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    int inFlight() {
        return inFlight;
    }

    int bufferedDocs() {
        return bufferedDocs;
    }

    int unpredictableIndices() {
        return predictor.unpredictableIndices();
    }

    @Override
    public void close() throws Exception {
        closed = true;
        finisher.close();
        if (primaryNodes != null) {
            primaryNodes.close();
        }
        try {
            client.close();
        } finally {
            failureHandler.close();
        }
    }

    private static byte[] gzip(byte[] bytes, int length) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(length / 4, 64));
        try (GZIPOutputStream gz = new GZIPOutputStream(out, 64 * 1024)) {
            gz.write(bytes, 0, length);
        } catch (IOException e) {
            throw new IllegalStateException("gzip of an in-memory buffer failed", e);
        }
        return out.toByteArray();
    }
}
