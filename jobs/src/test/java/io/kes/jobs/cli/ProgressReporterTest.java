package io.kes.jobs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.metrics.reporter.MetricReporterFactory;
import org.junit.jupiter.api.Test;

class ProgressReporterTest {

    /**
     * Flink takes a reporter's {@code factory.class} only from the factories its service loader
     * finds: a service entry left behind by a move leaves bin/kes run, the quick start and the bench
     * without progress, and only a whole job would show it.
     */
    @Test
    void flinksServiceLoaderFindsTheReportersFactory() {
        List<String> found = new ArrayList<>();
        ServiceLoader.load(MetricReporterFactory.class)
                .forEach(f -> found.add(f.getClass().getName()));

        assertThat(found).contains(ProgressReporter.Factory.class.getName());
    }

    /**
     * The JobManager's checkpoint gauges (its job group: a job id, no operator) are kept by job,
     * read live: the progress line and the look for a declined checkpoint read them in place of the
     * web UI.
     */
    @Test
    void aJobsCheckpointGaugesAreReadByItsId() {
        ProgressReporter reporter = new ProgressReporter();
        long[] failed = {0};
        UnregisteredMetricsGroup jobGroup = new UnregisteredMetricsGroup() {
            @Override
            public Map<String, String> getAllVariables() {
                return Map.of("<job_id>", "job-1", "<job_name>", "kes");
            }
        };
        try {
            reporter.notifyOfAddedMetric((Gauge<Long>) () -> failed[0], ProgressReporter.FAILED_CHECKPOINTS, jobGroup);
            failed[0] = 2;

            assertThat(ProgressReporter.checkpointGauge(ProgressReporter.FAILED_CHECKPOINTS, "job-1"))
                    .isEqualTo(2);
            assertThat(ProgressReporter.checkpointGauge(ProgressReporter.FAILED_CHECKPOINTS, "job-2"))
                    .as("another job's")
                    .isEqualTo(-1);
            assertThat(ProgressReporter.checkpointGauge(ProgressReporter.LAST_COMPLETED_CHECKPOINT, "job-1"))
                    .as("not registered yet")
                    .isEqualTo(-1);
        } finally {
            ProgressReporter.reset();
        }
    }
}
