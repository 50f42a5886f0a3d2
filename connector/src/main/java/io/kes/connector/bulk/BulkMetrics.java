package io.kes.connector.bulk;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.SinkWriterMetricGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;

/**
 * The writer's metrics, under the {@code kes} group of each sink subtask. Updated only on the task
 * thread (responses are handed over through the mailbox), so plain counters suffice.
 */
final class BulkMetrics {

    private static final int HISTOGRAM_WINDOW = 1024;

    final Counter docsOut;
    final Counter bytesOut;
    final Counter bulksSent;
    final Counter retriesRejected;
    final Counter retriesUnavailable;
    final Counter requestRetries;
    final Counter permanentFailures;
    final Counter replaysAccepted;
    final Histogram docsPerBulk;
    final Histogram shardsPerBulk;
    final Histogram bulkLatencyMillis;
    final Counter fenceFailures;
    final Histogram fenceMillis;

    BulkMetrics(SinkWriterMetricGroup sinkGroup, BulkWriter writer) {
        MetricGroup g = sinkGroup.addGroup("kes");
        docsOut = sinkGroup.getNumRecordsSendCounter();
        bytesOut = sinkGroup.getNumBytesSendCounter();
        bulksSent = g.counter("bulksSent");
        retriesRejected = g.counter("itemRetriesRejected");
        retriesUnavailable = g.counter("itemRetriesUnavailable");
        requestRetries = g.counter("requestRetries");
        permanentFailures = g.counter("permanentFailures");
        replaysAccepted = g.counter("replaysAccepted");
        docsPerBulk = g.histogram("docsPerBulk", new DescriptiveStatisticsHistogram(HISTOGRAM_WINDOW));
        shardsPerBulk = g.histogram("shardsPerBulk", new DescriptiveStatisticsHistogram(HISTOGRAM_WINDOW));
        bulkLatencyMillis = g.histogram("bulkLatencyMs", new DescriptiveStatisticsHistogram(HISTOGRAM_WINDOW));
        fenceFailures = g.counter("fenceFailures");
        fenceMillis = g.histogram("fenceMs", new DescriptiveStatisticsHistogram(HISTOGRAM_WINDOW));
        g.gauge("inFlightBulks", writer::inFlight);
        g.gauge("bufferedDocs", writer::bufferedDocs);
    }
}
