package io.kes.connector.bulk;

import io.kes.connector.bulk.EarlierWrites.TaggedBulks;
import io.kes.connector.cluster.SentTo;
import io.kes.connector.cluster.StatusPolicy;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds back the retry of a bulk that got no answer until Elasticsearch no longer runs it.
 *
 * <p>A bulk kes gave up waiting for (no answer within {@code elasticsearch.socket_timeout}, a
 * connection reset, a proxy's or load balancer's 502/504 or other 5xx without Elasticsearch's
 * error: {@link StatusPolicy#mayStillRun}) may still be running on a slow node: queued behind a
 * GC pause, a full write queue, a shard that waits for its copies. Retried at once, its items could be applied twice in
 * the wrong order: the retry, then a newer write of the same id, then the abandoned attempt, which
 * takes the document back to an older value. So before such a bulk goes out again (its ids stay
 * held meanwhile, {@link InFlightIds}, so no newer write of them leaves either), the writer lists
 * the bulk tasks tagged with this job's {@code X-Opaque-Id} that run when it gave up, and waits
 * until none of them runs any more. Tasks of sibling writers are in that list too: they end in
 * their own time, and waiting for them costs only this retry's delay.
 *
 * <p>The node the bulk went to (its shard's primary, or the configured host it went through: the
 * REST client is given that one node only, so it never sends a copy on to another) is asked for
 * its own tasks as well, and must answer: a node cut off from the cluster (frozen, partitioned,
 * dropped by the master) is missing from the cluster's listing without being a failure in it, yet it may still
 * hold the bulk and, once it rejoins, apply it on the shards' new primaries. A node that refuses
 * the connection runs nothing: no process listens. Nor does one that came back as a new process
 * under another address (a pod's new IP): when the address the bulk went to is silent, the
 * cluster is read through the configured hosts, and the node id kes recorded with the bulk,
 * listed with another ephemeral id and publishing another address, counts as that address's
 * answer ({@link io.kes.connector.cluster.NodeRestarts#gone}). A node the cluster no longer lists
 * does not: it may be frozen or cut off and still hold the bulk.
 *
 * <p>What it cannot see: a request still on its way through the network (not yet a task), and any
 * task when kes lacks the cluster privilege {@code monitor} (then it warns once and retries at
 * once, as before). {@code version: kafka-offset} closes the gap for writes of an id whose
 * records stay in one partition: Elasticsearch refuses a late write older than the document. Not
 * for deletes past {@code index.gc_deletes} (60 s): a deleted document's version is kept only that
 * long, after which a late index of an older version is applied again. A node that does not answer the listing (and
 * did not come back elsewhere) may still run the bulk: the writer keeps asking until {@code retry.max_time}, then fails the job, whose restart
 * waits for the same tasks on the nodes that answer by then ({@link EarlierWrites} does not wait
 * for a node that does not).
 *
 * <p>Task thread only: the listing answers through the mailbox, the polls are timers.
 */
final class AbandonedBulks {

    private static final Logger LOG = LoggerFactory.getLogger(AbandonedBulks.class);
    static final long POLL_MILLIS = 200;

    /**
     * Lists the running bulk tasks tagged with this job's {@code X-Opaque-Id}; answers on the task
     * thread, with the tasks or with the listing's HTTP status ({@link StatusPolicy#NO_RESPONSE}: none).
     */
    interface TaskList {
        /** {@code node}: the node the bulk went to, asked for its own tasks too (null: not known). */
        void list(SentTo node, Consumer<TaggedBulks> listed, IntConsumer failedWithStatus);
    }

    /** Runs an action on the task thread after a delay. */
    interface Timers {
        void after(long delayMillis, Runnable action);
    }

    private final TaskList tasks;
    private final Timers timers;
    private final LongSupplier nanoTime;
    private boolean warnedUnlisted;

    AbandonedBulks(TaskList tasks, Timers timers, LongSupplier nanoTime) {
        this.tasks = tasks;
        this.timers = timers;
        this.nanoTime = nanoTime;
    }

    /**
     * Runs {@code retry} once no bulk task of this job that ran when this was called runs any more;
     * or {@code giveUp} with the reason, when that is not known by {@code deadlineNanos}.
     */
    void awaitGone(SentTo sentTo, long deadlineNanos, Runnable retry, Consumer<String> giveUp) {
        tasks.list(
                sentTo,
                first -> {
                    if (first.ids().isEmpty() && first.everyNodeAnswered()) {
                        retry.run();
                    } else {
                        poll(sentTo, first.ids(), deadlineNanos, retry, giveUp);
                    }
                },
                status -> failedToList(status, sentTo, null, deadlineNanos, retry, giveUp));
    }

    private void poll(
            SentTo sentTo, Set<String> abandoned, long deadlineNanos, Runnable retry, Consumer<String> giveUp) {
        if (nanoTime.getAsLong() - deadlineNanos > 0) {
            giveUp.accept("no answer from Elasticsearch, and it still runs " + abandoned.size()
                    + " bulk task(s) of this job that ran when "
                    + "kes gave up waiting (or a node did not say whether it does): sending the documents again could be "
                    + "overwritten by the late bulk");
            return;
        }
        timers.after(
                POLL_MILLIS,
                () -> tasks.list(
                        sentTo,
                        now -> {
                            // None known yet (the first listing failed, or a node did not answer it): wait for every
                            // bulk of the job that runs now, since one of them may be the abandoned one.
                            Set<String> watched = abandoned.isEmpty() ? now.ids() : abandoned;
                            if (now.among(watched).isEmpty() && now.everyNodeAnswered()) {
                                retry.run();
                            } else {
                                poll(sentTo, watched, deadlineNanos, retry, giveUp);
                            }
                        },
                        status -> failedToList(status, sentTo, abandoned, deadlineNanos, retry, giveUp)));
    }

    private void failedToList(
            int status,
            SentTo sentTo,
            Set<String> abandoned,
            long deadlineNanos,
            Runnable retry,
            Consumer<String> giveUp) {
        StatusPolicy.Action action = StatusPolicy.ofRequest(status);
        // refused (no 'monitor') or not there (OpenSearch Serverless has no tasks API): asking again will not help
        if (action == StatusPolicy.Action.STOP || action == StatusPolicy.Action.PERMANENT) {
            if (!warnedUnlisted) {
                warnedUnlisted = true;
                LOG.warn(
                        "Cannot list Elasticsearch tasks (HTTP {}): a bulk that got no answer is retried at once, and if the node "
                                + "still applies it later, its documents can go back to older values until their next write. Grant kes "
                                + "the cluster privilege 'monitor' (a cluster without a tasks API, such as OpenSearch Serverless, "
                                + "cannot), or write with version: kafka-offset, to close that gap.",
                        status);
            }
            retry.run();
            return;
        }
        // the node or the network: whatever the bulk's fate, a retry would fail the same way now
        poll(sentTo, abandoned == null ? Set.of() : abandoned, deadlineNanos, retry, giveUp);
    }
}
