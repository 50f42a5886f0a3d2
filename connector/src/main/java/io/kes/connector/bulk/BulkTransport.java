package io.kes.connector.bulk;

import io.kes.connector.bulk.EarlierWrites.TaggedBulks;
import java.io.IOException;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import org.apache.http.HttpHost;

/**
 * The writer's way to Elasticsearch: sends a batch's body as one {@code _bulk} and hands the
 * outcome back on the task thread. {@link BulkDispatcher} over the REST client in production; a
 * fake in the writer's unit tests, which answer each bulk when and how they choose.
 */
interface BulkTransport extends AutoCloseable {

    /** What the task thread does with a sent body's outcome. */
    interface Outcomes {
        void onResponse(Batch batch, BulkBody sent, BulkResponse response);

        void onRequestFailure(Batch batch, BulkBody sent, Exception failure);
    }

    /** Where outcomes go; set once, before the first {@link #dispatch}. */
    void outcomesTo(Outcomes outcomes);

    /** Sends the batch's current body; its outcome comes back through {@link Outcomes} on the task thread. */
    void dispatch(Batch batch);

    /** The node a bulk of {@code slot} goes to (its shard's primary), or null: the configured hosts. */
    HttpHost nodeOf(Slot slot);

    /**
     * Lists the bulk tasks of this job that run in the cluster now, and on {@code node} (the one an
     * abandoned bulk went to; null: none known) whether or not it is in the cluster
     * ({@link AbandonedBulks}); answers on the task thread.
     */
    void listTaggedBulks(HttpHost node, Consumer<TaggedBulks> listed, IntConsumer failedWithStatus);

    @Override
    void close() throws IOException;
}
