package io.kes.jobs.quickstart;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * A Flink metric reporter that keeps the operator counters and histograms of a job running in
 * this JVM's MiniCluster in memory: records read from Kafka, documents acknowledged by
 * Elasticsearch, bulks sent, the writer's bulkLatencyMs and fenceMs. The quick start shows them
 * as progress, the bench reads them after each run.
 */
public final class ProgressReporter implements MetricReporter {

    /** Operator metrics by "<metric>@<operator name>#<subtask>". */
    private static final Map<String, Counter> COUNTERS = new ConcurrentHashMap<>();
    private static final Map<String, Histogram> HISTOGRAMS = new ConcurrentHashMap<>();

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
        String operator = group.getAllVariables().get("<operator_name>");
        if (operator == null) {
            return; // task-level duplicates of operator metrics would be counted twice
        }
        String key = name + "@" + operator + "#" + group.getAllVariables().get("<subtask_index>");
        if (metric instanceof Counter c) {
            COUNTERS.put(key, c);
        } else if (metric instanceof Histogram h) {
            HISTOGRAMS.put(key, h);
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
        // keep the last values: the summary reads them after the job finished
    }

    /** Sum of all counters called {@code name} of operators whose name contains {@code operatorPart}. */
    public static long sum(String name, String operatorPart) {
        long total = 0;
        for (Map.Entry<String, Counter> e : COUNTERS.entrySet()) {
            if (e.getKey().startsWith(name + "@") && e.getKey().contains(operatorPart)) {
                total += e.getValue().getCount();
            }
        }
        return total;
    }

    /** The values in the windows of all histograms called {@code name} (all subtasks), merged. */
    public static long[] values(String name) {
        List<long[]> parts = new ArrayList<>();
        int n = 0;
        for (Map.Entry<String, Histogram> e : HISTOGRAMS.entrySet()) {
            if (e.getKey().startsWith(name + "@")) {
                long[] v = e.getValue().getStatistics().getValues();
                parts.add(v);
                n += v.length;
            }
        }
        long[] all = new long[n];
        int at = 0;
        for (long[] p : parts) {
            System.arraycopy(p, 0, all, at, p.length);
            at += p.length;
        }
        return all;
    }

    public static void reset() {
        COUNTERS.clear();
        HISTOGRAMS.clear();
    }

    /** Registered through {@code metrics.reporter.<name>.factory.class}. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new ProgressReporter();
        }
    }
}
