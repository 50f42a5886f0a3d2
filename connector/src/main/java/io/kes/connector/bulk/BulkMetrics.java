package io.kes.connector.bulk;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;

/**
 * The writer's metrics: {@code numRecordsSend} and {@code numBytesSend} under the names Flink's
 * sink writers use (dashboards find them), the rest under the {@code kes} group. Updated on the
 * task thread (responses are handed over through the mailbox), except the fence's and the
 * checkpoint wait's, which only the {@link EpochFinisher}'s thread updates.
 */
final class BulkMetrics {

    private static final int HISTOGRAM_WINDOW = 1024;

    final Counter docsOut;
    final Counter bytesOut;
    final Counter bulksSent;
    final Counter bulksToPrimaryNode;
    final Counter retriesRejected;
    final Counter retriesUnavailable;
    final Counter requestRetries;
    /** Bulks that got no answer and were retried only once Elasticsearch no longer ran them ({@link AbandonedBulks}). */
    final Counter bulksAwaitedAfterNoAnswer;

    final Counter permanentFailures;
    final Counter failureStored;
    final Counter replaysAccepted;
    final Counter docsWithUnknownShard;
    /** Documents stored in another index than the one predicted for their shard: moved by an ingest pipeline. */
    final Counter docsMovedByPipeline;

    final Counter bulksSplit;
    final Histogram docsPerBulk;
    final Histogram shardsPerBulk;
    final Histogram bulkLatencyMillis;
    final Counter fenceFailures;
    final Histogram fenceMillis;
    final Histogram checkpointWaitMillis;

    BulkMetrics(MetricGroup operatorGroup, SlotBuffers buffers, WriterRouting predictor, NodeBudgets budgets) {
        MetricGroup g = operatorGroup.addGroup("kes");
        docsOut = operatorGroup.counter("numRecordsSend");
        bytesOut = operatorGroup.counter("numBytesSend");
        bulksSent = g.counter("bulksSent");
        bulksToPrimaryNode = g.counter("bulksToPrimaryNode");
        retriesRejected = g.counter("itemRetriesRejected");
        retriesUnavailable = g.counter("itemRetriesUnavailable");
        requestRetries = g.counter("requestRetries");
        bulksAwaitedAfterNoAnswer = g.counter("bulksAwaitedAfterNoAnswer");
        permanentFailures = g.counter("permanentFailures");
        failureStored = g.counter("failureStoreRedirects");
        replaysAccepted = g.counter("replaysAccepted");
        docsWithUnknownShard = g.counter("docsWithUnknownShard");
        docsMovedByPipeline = g.counter("docsMovedByPipeline");
        bulksSplit = g.counter("bulksSplitTooLarge");
        docsPerBulk = g.histogram("docsPerBulk", new DescriptiveStatisticsHistogram(HISTOGRAM_WINDOW));
        shardsPerBulk = g.histogram("shardsPerBulk", new DescriptiveStatisticsHistogram(HISTOGRAM_WINDOW));
        bulkLatencyMillis = g.histogram("bulkLatencyMs", new DescriptiveStatisticsHistogram(HISTOGRAM_WINDOW));
        fenceFailures = g.counter("fenceFailures");
        fenceMillis = g.histogram("fenceMs", new DescriptiveStatisticsHistogram(HISTOGRAM_WINDOW));
        // From a barrier until every write before it is acknowledged and durable: what this writer
        // adds to the checkpoint's asynchronous part (the task keeps writing meanwhile).
        checkpointWaitMillis = g.histogram("checkpointWaitMs", new DescriptiveStatisticsHistogram(HISTOGRAM_WINDOW));
        g.gauge("inFlightBulks", budgets::inFlight);
        g.gauge("bufferedDocs", buffers::bufferedDocs);
        // Full buffers waiting for their node's in-flight budget (a stalled node's pile), and how
        // often adaptive concurrency cut a node's limit.
        g.gauge("queuedBytes", budgets::queuedBytes);
        g.gauge("concurrencyCuts", budgets::cuts);
        // Bulks that queued behind their slot's earlier bulks for the node its primary left (order kept).
        g.gauge("bulksQueuedBehindMovedPrimary", budgets::behindMovedPrimary);
        g.gauge("unpredictableIndices", predictor::unpredictableIndices);
    }
}
