package io.kes.connector.bulk;

import io.kes.connector.bulk.EarlierWrites.TaggedBulks;
import io.kes.connector.cluster.SentTo;
import java.io.IOException;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import org.apache.http.HttpHost;

/**
 * The writer's way to Elasticsearch: sends a bulk's current body as one {@code _bulk} and hands the
 * outcome back on the task thread, to the {@link Outcomes} given with that send. {@link BulkDispatcher} over the REST client in production; a
 * fake in the writer's unit tests, which answer each bulk when and how they choose.
 */
interface BulkTransport extends AutoCloseable {

    /** What the task thread does with a sent body's outcome. */
    interface Outcomes {
        void onResponse(BulkInFlight bulk, BulkBody sent, BulkResponse response);

        void onRequestFailure(BulkInFlight bulk, BulkBody sent, Exception failure);
    }

    /**
     * Sends the bulk's current body, to one node only; its outcome comes back to {@code outcomes}
     * on the task thread. Changes nothing of the bulk.
     *
     * @return the node it went to (its shard's primary, or the configured host the client picked),
     *         with its id and ephemeral id where known, or null when it failed before it left (the
     *         client found no node)
     */
    SentTo dispatch(BulkInFlight bulk, Outcomes outcomes);

    /** The node a bulk of {@code slot} goes to (its shard's primary), or null: the configured hosts. */
    HttpHost nodeOf(Slot slot);

    /**
     * Lists the bulk tasks of this job that run in the cluster now, and on {@code node} (the one an
     * abandoned bulk went to; null: none known) whether or not it is in the cluster
     * ({@link AbandonedBulks}); answers on the task thread. When {@code node} does not answer, but
     * the cluster lists its node id as another process listening elsewhere, it counts as having
     * answered that it runs none ({@link io.kes.connector.cluster.NodeRestarts#gone}).
     */
    void listTaggedBulks(SentTo node, Consumer<TaggedBulks> listed, IntConsumer failedWithStatus);

    @Override
    void close() throws IOException;
}
