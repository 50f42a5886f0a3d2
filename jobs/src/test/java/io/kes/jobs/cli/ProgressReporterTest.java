package io.kes.jobs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
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
}
