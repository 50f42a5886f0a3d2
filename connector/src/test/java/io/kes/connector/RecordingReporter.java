package io.kes.connector;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/** Keeps the metrics of a MiniCluster job in memory, so tests can read the sink's own numbers. */
public final class RecordingReporter implements MetricReporter {

    private static final Map<String, Metric> METRICS = new ConcurrentHashMap<>();

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
        METRICS.put(group.getMetricIdentifier(name), metric);
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {}

    public static void reset() {
        METRICS.clear();
    }

    /** Values of all numeric metrics whose identifier ends with {@code suffix} (one per subtask; a histogram gives its max). */
    public static List<Long> values(String suffix) {
        return values(id -> id.endsWith(suffix));
    }

    private static List<Long> values(Predicate<String> identifier) {
        List<Long> values = new ArrayList<>();
        METRICS.forEach((id, metric) -> {
            if (identifier.test(id)) {
                if (metric instanceof Counter c) {
                    values.add(c.getCount());
                } else if (metric instanceof Gauge<?> g && g.getValue() instanceof Number n) {
                    values.add(n.longValue());
                } else if (metric instanceof org.apache.flink.metrics.Histogram h && h.getCount() > 0) {
                    values.add(h.getStatistics().getMax()); // the largest value seen (what max() asks)
                }
            }
        });
        return values;
    }

    public static long sum(String suffix) {
        return values(suffix).stream().mapToLong(Long::longValue).sum();
    }

    /**
     * The sum over subtasks of an operator's metric: operator metrics are named
     * {@code ...<operator name>.<subtask index>.<metric>}, so a plain suffix cannot name them.
     */
    public static long sumOfOperator(String operatorName, String metric) {
        return valuesOfOperator(operatorName, metric).stream()
                .mapToLong(Long::longValue)
                .sum();
    }

    /** An operator's metric, one value per subtask ({@link #sumOfOperator}). */
    public static List<Long> valuesOfOperator(String operatorName, String metric) {
        Pattern id = Pattern.compile(".*" + Pattern.quote(operatorName) + "\\.\\d+\\." + Pattern.quote(metric));
        return values(id.asMatchPredicate());
    }

    public static long max(String suffix) {
        return values(suffix).stream().mapToLong(Long::longValue).max().orElse(0);
    }

    /** Registered through {@code metrics.reporter.<name>.factory.class}. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new RecordingReporter();
        }
    }
}
