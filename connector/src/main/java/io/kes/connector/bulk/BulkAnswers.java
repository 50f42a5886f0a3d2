package io.kes.connector.bulk;

import io.kes.connector.DocumentOperation;
import io.kes.connector.FailedOperation;
import io.kes.connector.FailureHandler;
import io.kes.connector.cluster.StatusPolicy;
import java.util.List;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a bulk's answer does, on the task thread. A response's items, as {@link ItemOutcomes}
 * sorted them, are done (acknowledged in the batch's epoch), sent again ({@link Retries}) or
 * handed to the {@link FailureHandler}; a request that failed as a whole is retried, sent in parts
 * (413), or fails the job, as {@link StatusPolicy#ofRequest} says. An item's id is released once
 * the item is over, not before: until then no later write of that id may go.
 */
final class BulkAnswers implements BulkTransport.Outcomes {

    /** What an answer does to the writer's task-thread state ({@link BulkWriter}). */
    interface Writer {
        /** The batch is over: every item succeeded, went to the failure handler, or failed the job. */
        void done(Batch batch);

        /** The job fails: what is left of the batch is no longer in flight (a restart replays it). */
        void giveUp(Batch batch, RuntimeException failure);

        /** The job fails; the first failure is the one it reports. */
        void fail(RuntimeException failure);

        /** Ids were released: send what may go now. */
        void pump();
    }

    private static final Logger LOG = LoggerFactory.getLogger(BulkAnswers.class);

    private final LongSupplier nanoTime;
    private final BulkMetrics metrics;
    private final NodeBudgets budgets;
    private final InFlightIds inFlightIds;
    private final WriterRouting predictor;
    private final FailureHandler failureHandler;
    private final BulkTransport transport;
    private final Retries retries;
    private final Writer writer;
    private final VersionConflicts versionConflicts = new VersionConflicts();

    BulkAnswers(
            LongSupplier nanoTime,
            BulkMetrics metrics,
            NodeBudgets budgets,
            InFlightIds inFlightIds,
            WriterRouting predictor,
            FailureHandler failureHandler,
            BulkTransport transport,
            Retries retries,
            Writer writer) {
        this.nanoTime = nanoTime;
        this.metrics = metrics;
        this.budgets = budgets;
        this.inFlightIds = inFlightIds;
        this.predictor = predictor;
        this.failureHandler = failureHandler;
        this.transport = transport;
        this.retries = retries;
        this.writer = writer;
    }

    @Override
    public void onResponse(Batch batch, BulkBody sent, BulkResponse response) {
        long now = nanoTime.getAsLong();
        metrics.bulkLatencyMillis.update((now - batch.sentNanos) / 1_000_000);
        ItemOutcomes outcomes = ItemOutcomes.sort(sent, response);
        String lostToAConflict = versionConflicts.check(sent, response);
        if (lostToAConflict != null) {
            LOG.warn("{}", lostToAConflict);
        }
        budgets.attemptEnded(
                batch, now, outcomes.retry == null ? now - batch.sentNanos : -1, outcomes.retriesRejected > 0);
        for (int i = 0; i < response.size(); i++) {
            DocumentOperation op = sent.operation(i);
            switch (outcomes.byItem[i]) {
                case DONE -> {
                    String storedIn = response.index[i] != null ? response.index[i] : op.index();
                    batch.epoch.acknowledged.record(
                            storedIn,
                            predictor.fenceAs(sent.prediction(i), storedIn),
                            response.appliedTerm(i, op.opType()));
                    inFlightIds.release(op);
                    if (predictor.movedByPipeline(op, sent.prediction(i), response.index[i])) {
                        metrics.docsMovedByPipeline.inc();
                    }
                }
                case PERMANENT, STOP -> inFlightIds.release(op);
                case RETRY, SPLIT -> {} // still in flight (an item is never split)
            }
        }
        metrics.docsOut.inc(outcomes.succeeded);
        metrics.replaysAccepted.inc(outcomes.replaysAccepted);
        metrics.retriesRejected.inc(outcomes.retriesRejected);
        metrics.retriesUnavailable.inc(outcomes.retriesUnavailable);
        if (!outcomes.permanent.isEmpty()) {
            handOver(outcomes.permanent);
        }
        if (!outcomes.failureStored.isEmpty()) {
            handOverFailureStored(outcomes.failureStored);
        }
        if (outcomes.retry != null) {
            batch.body = outcomes.retry;
            retries.schedule(batch, outcomes.retryCause);
        } else {
            partDone(batch);
        }
        writer.pump(); // ids released, maybe room in the budget
    }

    @Override
    public void onRequestFailure(Batch batch, BulkBody sent, Exception exception) {
        int status = StatusPolicy.statusOf(exception);
        budgets.attemptEnded(batch, nanoTime.getAsLong(), -1, StatusPolicy.rejected(status, null));
        switch (StatusPolicy.ofRequest(status)) {
            case SPLIT -> tooLarge(batch, sent, exception);
            case STOP -> writer.giveUp(batch, WriteFailures.refusedCredentials(status, batch.slot, exception));
            case PERMANENT, DONE ->
                writer.giveUp(batch, WriteFailures.wholeBulkRefused(status, sent.itemCount(), batch.slot, exception));
            case RETRY -> {
                metrics.requestRetries.inc();
                if (StatusPolicy.mayStillRun(exception)) { // no answer, or a proxy's 502/504
                    retries.afterNoAnswer(batch, sent, exception);
                } else {
                    retries.schedule(batch, "HTTP " + status);
                }
            }
        }
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
            LOG.warn(
                    "Elasticsearch refused a bulk of {} bytes as too large (HTTP 413, {}); sending it in parts."
                            + " Lower bulk.max_bytes below the node's http.max_content_length.",
                    sent.sizeInBytes(),
                    batch.slot);
            transport.dispatch(batch);
            return;
        }
        DocumentOperation op = sent.operation(0);
        inFlightIds.release(op);
        handOver(List.of(WriteFailures.documentTooLarge(op, sent.sizeInBytes(), exception)));
        partDone(batch);
    }

    /** The current part is over; the next part of a split bulk goes out now, or the bulk is done. */
    private void partDone(Batch batch) {
        if (batch.nextPart()) {
            transport.dispatch(batch);
        } else {
            writer.done(batch);
        }
    }

    private void handOver(List<FailedOperation> permanent) {
        metrics.permanentFailures.inc(permanent.size());
        try {
            failureHandler.onFailures(permanent);
        } catch (Exception e) {
            handlerFailed(e);
        }
    }

    /**
     * Documents a data stream refused and kept in its failure store: counted, warned about (the
     * first of each run, then with the running count every 1,000), and handed to the failure
     * handler, which puts them in the dead-letter topic when there is one.
     */
    private void handOverFailureStored(List<FailedOperation> stored) {
        long before = metrics.failureStored.getCount();
        metrics.failureStored.inc(stored.size());
        if (before == 0 || before / 1000 != metrics.failureStored.getCount() / 1000) {
            LOG.warn(
                    "{} document(s) so far went to a data stream's failure store instead of the data stream (Elasticsearch "
                            + "answered success with failure_store: used), latest: {}",
                    metrics.failureStored.getCount(),
                    stored.get(0).describe());
        }
        try {
            failureHandler.onFailureStored(stored);
        } catch (Exception e) {
            handlerFailed(e);
        }
    }

    /** A failure handler that could not take its records (a dead-letter send failed) fails the job: they would be lost. */
    private void handlerFailed(Exception e) {
        writer.fail(e instanceof RuntimeException re ? re : new RuntimeException(e.getMessage(), e));
    }
}
