package io.kes.connector.bulk;

import io.kes.connector.FailureHandler;
import io.kes.connector.SinkSettings;
import io.kes.connector.cluster.SentTo;
import io.kes.connector.cluster.StatusPolicy;
import io.kes.connector.internal.Backoff;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of every bulk after it went out, in one place: answered, then retried, split, done, given
 * up, or held until its node no longer runs it. The deciders say what an answer does
 * ({@link BulkAnswers}, {@link Retries}, {@link ItemOutcomes}); this class applies it: it changes a
 * {@link BulkInFlight} once it left, releases its per-id holds ({@link InFlightIds}) and tells the
 * departures when it is over ({@link Departures#over}). When a bulk leaves is {@link Departures}'
 * business. The first failure is kept ({@link FirstFailure}); after it nothing more is sent.
 * Task thread only: answers, timers and the task listing arrive there.
 */
final class BulkLifecycle implements BulkTransport.Outcomes, AutoCloseable {

    /** What the writer builds and shares with this class: its transport, queues, buffers, epochs, metrics. */
    record Parts(
            BulkTransport transport,
            NodeBudgets budgets,
            SlotBuffers buffers,
            CheckpointDrain drain,
            BulkMetrics metrics,
            WriterRouting predictor) {}

    private static final Logger LOG = LoggerFactory.getLogger(BulkLifecycle.class);

    private final TaskThread task;
    private final SlotBuffers buffers;
    private final NodeBudgets budgets;
    private final BulkMetrics metrics;
    private final Retries retries;
    private final AbandonedBulks abandoned;
    private final FailureHandOver handOver;
    private final InFlightIds ids = new InFlightIds();
    private final Acknowledgements acknowledgements;
    private final FirstFailure failure;
    private final Departures departures;

    /** Nodes of bulks given up on without an answer: they may still run them. */
    private final Set<SentTo> givenUpOn = new HashSet<>();

    private boolean closed;

    BulkLifecycle(SinkSettings settings, TaskThread task, Parts parts, FailureHandler failureHandler) {
        this.task = task;
        this.buffers = parts.buffers();
        this.budgets = parts.budgets();
        this.metrics = parts.metrics();
        this.acknowledgements = new Acknowledgements(parts.predictor(), metrics);
        this.retries =
                new Retries(settings.maxRetryTime(), new Backoff(settings.initialBackoff(), settings.maxBackoff()));
        this.abandoned = new AbandonedBulks(parts.transport()::listTaggedBulks, this::after, task.nanoTime());
        this.handOver = new FailureHandOver(failureHandler, metrics);
        this.failure = new FirstFailure(parts.drain());
        this.departures = new Departures(settings, task, parts, ids, failure, this);
    }

    /** Where documents go in and buffers leave from. */
    Departures departures() {
        return departures;
    }

    /**
     * A response: each item is done (acknowledged in the bulk's epoch), sent again or handed to the
     * failure handler, as {@link ItemOutcomes} classified it. An item's id is released once the item
     * is over, not before: until then no later write of that id may go.
     */
    @Override
    public void onResponse(BulkInFlight bulk, BulkBody sent, BulkResponse response) {
        long now = task.nanoTime().getAsLong();
        metrics.bulkLatencyMillis.update((now - bulk.sentNanos) / 1_000_000);
        ItemOutcomes outcomes = ItemOutcomes.classify(sent, response);
        budgets.attemptEnded(
                bulk, now, outcomes.retry == null ? now - bulk.sentNanos : -1, outcomes.retriesRejected > 0);
        acknowledgements.record(bulk, sent, response, outcomes);
        for (int i = 0; i < response.size(); i++) {
            if (outcomes.byItem[i] != StatusPolicy.Action.RETRY) { // done, refused, or stopping the job: over
                ids.release(sent, i);
            }
        }
        if (!outcomes.permanent.isEmpty()) {
            fail(handOver.refused(outcomes.permanent));
        }
        if (!outcomes.failureStored.isEmpty()) {
            fail(handOver.failureStored(outcomes.failureStored));
        }
        apply(bulk, BulkAnswers.ofResponse(outcomes));
        buffers.answered(sent); // done, or what is left copied into a retry body: its array may be filled again
        departures.pump(); // ids released: a bulk that waited for them may go
    }

    @Override
    public void onRequestFailure(BulkInFlight bulk, BulkBody sent, Exception exception) {
        int status = StatusPolicy.statusOf(exception);
        budgets.attemptEnded(bulk, task.nanoTime().getAsLong(), -1, StatusPolicy.rejected(status, null));
        NextStep next = BulkAnswers.ofRequestFailure(bulk, sent, exception);
        if (next instanceof NextStep.Retry || next instanceof NextStep.AwaitNode) {
            metrics.requestRetries.inc();
        }
        apply(bulk, next);
    }

    private void apply(BulkInFlight bulk, NextStep next) {
        if (next instanceof NextStep.Done) {
            partDone(bulk);
        } else if (next instanceof NextStep.Retry retry) {
            bulk.body = retry.left();
            retry(bulk, retry.cause());
        } else if (next instanceof NextStep.AwaitNode wait) {
            awaitNode(bulk, wait.cause());
        } else if (next instanceof NextStep.Split split) {
            int bytes = bulk.body.sizeInBytes();
            bulk.laterParts.addFirst(split.rest());
            bulk.body = split.first();
            metrics.bulksSplit.inc();
            LOG.warn(
                    "Elasticsearch refused a bulk of {} bytes as too large (HTTP 413, {}); sending it in parts."
                            + " Lower bulk.max_bytes below the node's http.max_content_length.",
                    bytes,
                    bulk.slot);
            departures.dispatch(bulk);
        } else if (next instanceof NextStep.HandOver hand) {
            ids.release(hand.failure().operation());
            fail(handOver.refused(List.of(hand.failure())));
            partDone(bulk);
        } else if (next instanceof NextStep.GiveUp giveUp) {
            giveUp(bulk, giveUp.failure());
        } else {
            throw new IllegalStateException("not a step a bulk takes after an answer: " + next);
        }
    }

    /** Sends the bulk's body again after its backoff, or gives up once {@code retry.max_time} has passed. */
    private void retry(BulkInFlight bulk, String cause) {
        bulk.attempt++;
        NextStep next = retries.next(bulk, task.nanoTime().getAsLong(), cause);
        if (!(next instanceof NextStep.RetryAfter after)) {
            apply(bulk, next);
            return;
        }
        if (bulk.attempt == 1 || bulk.attempt % 10 == 0) {
            LOG.warn(
                    "Retrying {} documents ({}) in {} ms, attempt {}: {}",
                    bulk.body.itemCount(),
                    bulk.slot,
                    after.delayMillis(),
                    bulk.attempt,
                    cause);
        }
        after(after.delayMillis(), () -> departures.dispatch(bulk));
    }

    /**
     * No answer: the bulk goes out again once Elasticsearch no longer runs it, or the job fails when
     * that is not known within {@code retry.max_time}. The bulk holds its own ids while in flight, so
     * none held means none whose order matters (id: kafka, ids Elasticsearch makes): a late copy of
     * them is harmless, and it is retried after its backoff at once.
     */
    private void awaitNode(BulkInFlight bulk, String cause) {
        if (!ids.anyHeld(bulk.body)) {
            retry(bulk, cause);
            return;
        }
        metrics.bulksAwaitedAfterNoAnswer.inc();
        abandoned.awaitGone(
                bulk.sentTo,
                retries.deadlineNanos(bulk),
                () -> retry(bulk, cause),
                why -> apply(bulk, retries.waitedTooLong(bulk, task.nanoTime().getAsLong(), why)));
    }

    /** The current part is over; the next part of a split bulk goes out now, or the bulk is done. */
    private void partDone(BulkInFlight bulk) {
        if (bulk.nextPart()) {
            departures.dispatch(bulk);
        } else {
            done(bulk);
        }
    }

    /** The bulk is over: every item succeeded, went to the failure handler, or failed the job. */
    private void done(BulkInFlight bulk) {
        departures.over(bulk);
    }

    /** The job fails: what is left of the bulk is no longer in flight (a restart replays it). */
    private void giveUp(BulkInFlight bulk, RuntimeException why) {
        fail(why);
        if (bulk.sentTo != null) {
            givenUpOn.add(bulk.sentTo); // perhaps it got no answer: the node may still apply it
        }
        ids.releaseAll(bulk.body);
        bulk.laterParts.forEach(ids::releaseAll);
        bulk.laterParts.clear();
        done(bulk);
    }

    private void fail(RuntimeException why) {
        failure.fail(why);
    }

    /** Rethrows the first asynchronous failure, if any. */
    void rethrowFailure() {
        failure.rethrow();
    }

    /**
     * The nodes that may still run one of this writer's bulks: those it sent and has no final
     * answer for, and those it gave up on. Bulks sent to the configured hosts are not named: the
     * cluster's task listing covers those hosts while they are in the cluster.
     */
    Set<SentTo> nodesThatMayRunItsBulks() {
        Set<SentTo> nodes = new HashSet<>(givenUpOn);
        departures.addNodesOfUnfinished(nodes);
        return nodes;
    }

    /** Runs {@code action} on the task thread in {@code delayMillis}, unless the writer closed meanwhile. */
    private void after(long delayMillis, Runnable action) {
        ProcessingTimeService time = task.time();
        time.registerTimer(time.getCurrentProcessingTime() + delayMillis, t -> {
            if (!closed) {
                action.run();
            }
        });
    }

    /** No retry, poll or buffer goes out any more. */
    @Override
    public void close() {
        closed = true;
        departures.close();
    }
}
