package io.kes.jobs.quickstart;

import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * A Flink metric reporter that keeps the counters the quick start shows (records read from Kafka,
 * documents acknowledged by Elasticsearch, bulks sent) in memory. It works because the quick
 * start runs the job in an embedded MiniCluster in the same JVM.
 */
public final class ProgressReporter implements MetricReporter {

    /** Operator counters by "<metric>@<operator name>#<subtask>". */
    private static final Map<String, Counter> COUNTERS = new ConcurrentHashMap<>();
    private static final Map<String, Gauge<?>> GAUGES = new ConcurrentHashMap<>();

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
        } else if (metric instanceof Gauge<?> g) {
            GAUGES.put(key, g);
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

    public static void reset() {
        COUNTERS.clear();
        GAUGES.clear();
    }

    /** Registered through {@code metrics.reporter.<name>.factory.class}. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new ProgressReporter();
        }
    }
}
