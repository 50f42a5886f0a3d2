package io.kes.jobs.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * A Flink metric reporter that keeps the operator counters and histograms of a job running in
 * this JVM's MiniCluster in memory: records read from Kafka, documents acknowledged by
 * Elasticsearch, bulks sent, the writer's bulkLatencyMs and fenceMs. {@code bin/kes run} shows them
 * as progress ({@link RunProgress}, with the Kafka source's offsets for lag), so does the quick
 * start, and the bench reads them after each run.
 */
public final class ProgressReporter implements MetricReporter {

    /** Operator metrics by "<metric>@<operator name>#<subtask>". */
    private static final Map<String, Counter> COUNTERS = new ConcurrentHashMap<>();

    private static final Map<String, Histogram> HISTOGRAMS = new ConcurrentHashMap<>();
    /**
     * The Kafka source's offsets per partition ("<gauge>\u0000<topic>\u0000<partition>"): its position
     * ({@code currentOffset}) and the offset it last committed on a checkpoint ({@code committedOffset}),
     * for lag; other gauges are not kept.
     */
    private static final Map<String, Gauge<?>> KAFKA_OFFSETS = new ConcurrentHashMap<>();
    /**
     * The JobManager's checkpoint gauges of each job ("<gauge>\u0000<job id>"): what the progress
     * line and the look for a declined last checkpoint read, in memory, instead of asking the web
     * UI's REST API every few hundred milliseconds (which cost ~5% of a steady job's CPU: Netty,
     * Flink's handlers and JSON on both sides).
     */
    private static final Map<String, Gauge<?>> CHECKPOINT_GAUGES = new ConcurrentHashMap<>();

    /** Flink's {@code DefaultCheckpointStatsTracker} gauges kept in {@link #CHECKPOINT_GAUGES}. */
    public static final String FAILED_CHECKPOINTS = "numberOfFailedCheckpoints";

    public static final String IN_PROGRESS_CHECKPOINTS = "numberOfInProgressCheckpoints";
    public static final String LAST_COMPLETED_CHECKPOINT = "lastCompletedCheckpointId";
    public static final String LAST_CHECKPOINT_DURATION = "lastCheckpointDuration";
    private static final Set<String> CHECKPOINT_GAUGE_NAMES =
            Set.of(FAILED_CHECKPOINTS, IN_PROGRESS_CHECKPOINTS, LAST_COMPLETED_CHECKPOINT, LAST_CHECKPOINT_DURATION);

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
        Map<String, String> variables = group.getAllVariables();
        if (metric instanceof Gauge<?> g
                && (CURRENT_OFFSET.equals(name) || COMMITTED_OFFSET.equals(name))
                && variables.containsKey("<topic>")) {
            KAFKA_OFFSETS.put(name + "\u0000" + variables.get("<topic>") + "\u0000" + variables.get("<partition>"), g);
            return;
        }
        if (metric instanceof Gauge<?> g
                && CHECKPOINT_GAUGE_NAMES.contains(name)
                && variables.containsKey("<job_id>")) {
            CHECKPOINT_GAUGES.put(name + "\u0000" + variables.get("<job_id>"), g);
            return;
        }
        String operator = variables.get("<operator_name>");
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

    /**
     * What the progress says, once, when the Kafka source's offset commit on a checkpoint failed
     * (Flink's {@code commitsFailed}; the warning itself goes to the log file, see
     * jobs/config/log4j2-cli.properties): typically the group coordinator still loading just after
     * the broker started. A newcomer reading a stack trace mid-progress takes it for a failure.
     */
    public static final String OFFSET_COMMIT_NOTE = "[kes] note: a Kafka offset commit failed (the group coordinator "
            + "was busy, e.g. still loading): harmless, kes restarts from the offsets in its checkpoints and the next "
            + "checkpoint commits again; details in the log file";

    /** Whether {@link #OFFSET_COMMIT_NOTE} is due: a commit failed and the note was not printed yet. */
    public static boolean offsetCommitNoteDue(boolean printed) {
        return !printed && sum("commitsFailed", "Source") > 0;
    }

    /** Flink's Kafka source gauge of the last record emitted per partition; negative before the first. */
    public static final String CURRENT_OFFSET = "currentOffset";
    /** Flink's Kafka source gauge of the offset committed on the last checkpoint per partition; negative before one. */
    public static final String COMMITTED_OFFSET = "committedOffset";

    /**
     * The Kafka source's {@link #CURRENT_OFFSET} or {@link #COMMITTED_OFFSET} gauges, by topic then
     * partition (negative where the source has none yet).
     */
    public static Map<String, Map<Integer, Long>> kafkaOffsets(String gauge) {
        Map<String, Map<Integer, Long>> offsets = new java.util.TreeMap<>();
        KAFKA_OFFSETS.forEach((key, value) -> {
            String[] parts = key.split("\u0000");
            if (parts[0].equals(gauge) && value.getValue() instanceof Number n) {
                offsets.computeIfAbsent(parts[1], t -> new java.util.TreeMap<>())
                        .put(Integer.parseInt(parts[2]), n.longValue());
            }
        });
        return offsets;
    }

    /** The newest value of each histogram called {@code name} (one per subtask), the largest of them; -1 when none has one. */
    public static long latest(String name) {
        long latest = -1;
        for (Map.Entry<String, Histogram> e : HISTOGRAMS.entrySet()) {
            if (e.getKey().startsWith(name + "@")) {
                long[] v = e.getValue().getStatistics().getValues();
                if (v.length > 0) {
                    latest = Math.max(latest, v[v.length - 1]);
                }
            }
        }
        return latest;
    }

    /** The job's checkpoint gauge {@code name} ({@link #FAILED_CHECKPOINTS}...); -1 before Flink registered it. */
    public static long checkpointGauge(String name, String jobId) {
        Gauge<?> gauge = CHECKPOINT_GAUGES.get(name + "\u0000" + jobId);
        return gauge != null && gauge.getValue() instanceof Number n ? n.longValue() : -1;
    }

    public static void reset() {
        CHECKPOINT_GAUGES.clear();
        COUNTERS.clear();
        HISTOGRAMS.clear();
        KAFKA_OFFSETS.clear();
    }

    /** Registered through {@code metrics.reporter.<name>.factory.class}. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new ProgressReporter();
        }
    }

    /** A count's growth per second between one progress line and the next. */
    public static final class Rate {
        private long lastCount;
        private long lastAtNanos;

        public Rate(long startedNanos) {
            this.lastAtNanos = startedNanos;
        }

        public double perSecond(long count, long nowNanos) {
            double rate = (count - lastCount) / Math.max((nowNanos - lastAtNanos) / 1e9, 1e-3);
            lastCount = count;
            lastAtNanos = nowNanos;
            return rate;
        }
    }
}
