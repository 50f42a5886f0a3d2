package io.kes.connector.bulk;

import io.kes.connector.DocumentOperation;
import io.kes.connector.Durability;
import io.kes.connector.FailedOperation;
import io.kes.connector.FailureHandler;
import io.kes.connector.SinkSettings;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.zip.GZIPOutputStream;
import io.kes.connector.bulk.Epochs.Epoch;
import io.kes.connector.internal.TargetNodeSelector;
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
 * Buffers documents per (index, shard) slot and sends each full buffer as one single-shard
 * {@code _bulk}, asynchronously, with at most {@code bulk.max_in_flight} bulks open.
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

    private final SinkSettings settings;
    private final RestClient client;
    private final TargetNodeSelector selector;
    private final PrimaryNodes primaryNodes;
    private final MailboxExecutor mailbox;
    private final ProcessingTimeService time;
    private final FailureHandler failureHandler;
    private final Backoff backoff;
    private final BulkMetrics metrics;
    private final Epochs epochs = new Epochs();
    private final EpochFinisher finisher;

    /** index → slot per shard; shard-less documents use the index's slot 0 of {@code unroutedSlots}. */
    private final Map<String, Slot[]> slotsByIndex = new HashMap<>();
    private final Map<String, Slot> unroutedSlots = new HashMap<>();
    private final Slot mixedSlot = new Slot(null, DocumentOperation.UNKNOWN_SHARD);
    private final Set<Slot> nonEmptySlots = new LinkedHashSet<>();

    private int inFlight;
    private int bufferedDocs;
    private boolean lingerTimerArmed;
    private RuntimeException asyncFailure;
    private boolean closed;

    /** @param client built with {@code selector} as its node selector ({@link io.kes.connector.internal.RestClients#create}) */
    public BulkWriter(SinkSettings settings, RestClient client, TargetNodeSelector selector, MailboxExecutor mailbox,
                      ProcessingTimeService time, MetricGroup metricGroup, int subtaskIndex, FailureHandler failureHandler)
            throws Exception {
        this.settings = settings;
        this.client = client;
        this.selector = selector;
        // Behind a path prefix the cluster sits behind a proxy: its nodes' own addresses are not the way in.
        this.primaryNodes = settings.primaryNodeRouting && settings.shardGrouping && settings.pathPrefix == null
                ? new PrimaryNodes(client, selector, "kes-primary-nodes-" + subtaskIndex) : null;
        this.mailbox = mailbox;
        this.time = time;
        this.failureHandler = failureHandler;
        this.backoff = new Backoff(settings.initialBackoff, settings.maxBackoff);
        this.metrics = new BulkMetrics(metricGroup, this);
        CheckpointFence fence = settings.durability == Durability.CHECKPOINT_FENCE
                ? new CheckpointFence(client, backoff, settings.maxRetryTime, settings.fenceSyncWait) : null;
        this.finisher = new EpochFinisher(fence, failureHandler, metrics, this::wakeTaskThread, "kes-checkpoint-fence-" + subtaskIndex);
        failureHandler.open(subtaskIndex);
    }

    public void write(DocumentOperation op) throws InterruptedException {
        rethrowAsyncFailure();
        Slot slot = slotFor(op);
        if (slot.body == null) {
            slot.body = new BulkBody(initialCapacity(slot));
            slot.firstDocAtMillis = time.getCurrentProcessingTime();
            nonEmptySlots.add(slot);
            armLingerTimer();
        }
        slot.body.add(op);
        bufferedDocs++;
        if (slot.body.itemCount() >= settings.maxDocs || slot.body.sizeInBytes() >= settings.maxBytes) {
            nonEmptySlots.remove(slot);
            send(slot);
        }
    }

    /**
     * Bodies of a busy slot come out about the same size each time; starting at the last size plus
     * some slack avoids growing a ~1 MB array by doubling (copying) it several times per bulk.
     */
    private int initialCapacity(Slot slot) {
        long hint = slot.lastBodyBytes > 0 ? slot.lastBodyBytes + slot.lastBodyBytes / 8 : 64 * 1024;
        return (int) Math.min(hint, settings.maxBytes + 64 * 1024);
    }

    private Slot slotFor(DocumentOperation op) {
        if (!settings.shardGrouping) {
            return mixedSlot;
        }
        int shard = op.shard();
        if (shard < 0) {
            return unroutedSlots.computeIfAbsent(op.index(), i -> new Slot(i, DocumentOperation.UNKNOWN_SHARD));
        }
        Slot[] slots = slotsByIndex.get(op.index());
        if (slots == null || slots.length <= shard) {
            Slot[] grown = new Slot[Math.max(shard + 1, op.numberOfShards())];
            if (slots != null) {
                System.arraycopy(slots, 0, grown, 0, slots.length);
            }
            slots = grown;
            slotsByIndex.put(op.index(), slots);
        }
        Slot slot = slots[shard];
        if (slot == null) {
            slot = new Slot(op.index(), shard);
            slots[shard] = slot;
        }
        return slot;
    }

    /** Sends the slot's buffer, first waiting (backpressure) while all in-flight permits are taken. */
    private void send(Slot slot) throws InterruptedException {
        BulkBody body = slot.take();
        bufferedDocs -= body.itemCount();
        while (inFlight >= settings.maxInFlight) {
            mailbox.yield();
            rethrowAsyncFailure();
        }
        inFlight++;
        Batch batch = new Batch(body, slot, epochs.bulkSent(), System.nanoTime());
        metrics.docsPerBulk.update(body.itemCount());
        metrics.shardsPerBulk.update(distinctShards(body));
        dispatch(batch);
    }

    private static int distinctShards(BulkBody body) {
        DocumentOperation first = body.operation(0);
        boolean single = true;
        for (DocumentOperation op : body.operations()) {
            if (op.shard() < 0) {
                return 0; // not known
            }
            if (op.shard() != first.shard() || !op.index().equals(first.index())) {
                single = false;
                break;
            }
        }
        if (single) {
            return 1;
        }
        Set<String> shards = new HashSet<>();
        for (DocumentOperation op : body.operations()) {
            shards.add(op.index() + '\u0000' + op.shard());
        }
        return shards.size();
    }

    /** One bulk's items, from the first send until every item succeeded or failed for good. */
    private static final class Batch {
        final BulkBody body;
        final Slot slot;
        /** The checkpoint interval it was first sent in; its retries stay there. */
        final Epoch epoch;
        final long firstSentNanos;
        int attempt;
        long sentNanos;

        Batch(BulkBody body, Slot slot, Epoch epoch, long firstSentNanos) {
            this.body = body;
            this.slot = slot;
            this.epoch = epoch;
            this.firstSentNanos = firstSentNanos;
        }

        Batch retryWith(BulkBody subset) {
            Batch next = new Batch(subset, slot, epoch, firstSentNanos);
            next.attempt = attempt + 1;
            return next;
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
            RequestOptions.Builder options = RequestOptions.DEFAULT.toBuilder();
            options.addHeader("Content-Encoding", "gzip");
            request.setOptions(options);
        }
        // An NIO entity hands the whole body to the socket: a plain ByteArrayEntity goes through a
        // 4 KB copy buffer, one event-loop turn and one write syscall per 4 KB (~250 per bulk).
        request.setEntity(new NByteArrayEntity(bytes, 0, length, NDJSON));
        metrics.bulksSent.inc();
        metrics.bytesOut.inc(length);
        batch.sentNanos = System.nanoTime();
        int expectedItems = batch.body.itemCount();
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
                toMailbox(() -> onResponse(batch, parsed), "kes bulk response");
            }

            @Override
            public void onFailure(Exception exception) {
                toMailbox(() -> onRequestFailure(batch, exception), "kes bulk failure");
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

    private void onResponse(Batch batch, BulkResponse response) {
        metrics.bulkLatencyMillis.update((System.nanoTime() - batch.sentNanos) / 1_000_000);
        BulkBody retries = null;
        List<FailedOperation> permanent = null;
        String retryCause = null;
        int succeeded = 0;
        for (int i = 0; i < response.size(); i++) {
            DocumentOperation op = batch.body.operation(i);
            int status = response.status[i];
            switch (ItemOutcome.of(status, response.errorType[i], op.opType())) {
                case SUCCESS -> {
                    succeeded++;
                    if (status == 409) {
                        metrics.replaysAccepted.inc();
                    }
                    batch.epoch.acknowledged.record(response.index[i] != null ? response.index[i] : op.index(), op.shard(),
                            response.primaryTerm[i]);
                }
                case RETRY -> {
                    if (retries == null) {
                        retries = new BulkBody(batch.body.sizeInBytes());
                    }
                    retries.addEncoded(batch.body, i);
                    retryCause = ItemOutcome.retryCause(status, response.errorType[i]) + " (" + status + " "
                            + response.errorType[i] + ": " + response.errorReason[i] + ")";
                    if (status == 429 || "es_rejected_execution_exception".equals(response.errorType[i])) {
                        metrics.retriesRejected.inc();
                    } else {
                        metrics.retriesUnavailable.inc();
                    }
                }
                case PERMANENT -> {
                    if (permanent == null) {
                        permanent = new ArrayList<>();
                    }
                    permanent.add(new FailedOperation(op, status, response.errorType[i], response.errorReason[i]));
                }
            }
        }
        metrics.docsOut.inc(succeeded);
        if (permanent != null) {
            metrics.permanentFailures.inc(permanent.size());
            try {
                failureHandler.onFailures(permanent);
            } catch (Exception e) {
                failAsync(e instanceof RuntimeException re ? re : new RuntimeException(e.getMessage(), e));
            }
        }
        if (retries != null) {
            scheduleRetry(batch.retryWith(retries), retryCause);
        } else {
            done(batch);
        }
    }

    /** The batch is over: every item succeeded, went to the failure handler, or failed the job. */
    private void done(Batch batch) {
        inFlight--;
        finishDrained(epochs.bulkDone(batch.epoch));
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

    private void onRequestFailure(Batch batch, Exception exception) {
        int status = exception instanceof ResponseException re ? re.getResponse().getStatusLine().getStatusCode() : -1;
        boolean retryable = status == -1 || status == 429 || status >= 500;
        if (!retryable) {
            failAsync(new IllegalStateException("Elasticsearch refused a whole bulk of " + batch.body.itemCount()
                    + " documents (" + batch.slot + ") with HTTP " + status + ": " + exception.getMessage()
                    + (status == 413 ? " -- lower bulk.max_bytes below the node's http.max_content_length" : ""), exception));
            done(batch);
            return;
        }
        metrics.requestRetries.inc();
        scheduleRetry(batch.retryWith(batch.body), status == -1 ? "connection error (" + exception + ")" : "HTTP " + status);
    }

    private void scheduleRetry(Batch retry, String cause) {
        long elapsedMillis = (System.nanoTime() - retry.firstSentNanos) / 1_000_000;
        if (elapsedMillis >= settings.maxRetryTime.toMillis()) {
            failAsync(new IllegalStateException(retry.body.itemCount() + " documents (" + retry.slot + ") still failed after "
                    + retry.attempt + " attempts over " + elapsedMillis + " ms, last cause: " + cause
                    + ". Elasticsearch is overloaded or unavailable; the job restarts from its last checkpoint."
                    + " Raise retry.max_time to wait longer, or lower bulk.max_in_flight."));
            done(retry);
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
        long lingerMillis = settings.linger.toMillis();
        List<Slot> due = new ArrayList<>();
        for (Slot slot : nonEmptySlots) {
            if (slot.firstDocAtMillis + lingerMillis <= now) {
                due.add(slot);
            }
        }
        nonEmptySlots.removeAll(due);
        for (Slot slot : due) {
            send(slot);
        }
        if (!nonEmptySlots.isEmpty()) {
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
        List<Slot> pending = new ArrayList<>(nonEmptySlots);
        nonEmptySlots.clear();
        for (Slot slot : pending) {
            send(slot);
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
