package io.kes.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ProfilerTest {

    @Test
    void cpuSummaryGroupsThreadsAndCountsTheInnermostKesFrameOfTheJobsThreadsOnly() {
        String summary = Profiler.cpuSummary(List.of(
                "[elasticsearch: kes: bulk writer (1/2)#0 tid=11];java/lang/Thread.run;io/kes/connector/bulk/BulkWriter.write;"
                        + "io/kes/connector/bulk/BulkBody.add;java/lang/System.arraycopy 6",
                "[elasticsearch: kes: bulk writer (2/2)#0 tid=12];java/lang/Thread.run;io/kes/connector/bulk/BulkWriter.write 2",
                "[C2 CompilerThre tid=5];PhaseChaitin::Split 10",
                "[main tid=1];io/kes/bench/Bench.main;java/lang/Thread.sleep 1"));

        assertThat(summary).startsWith("19 CPU samples");
        assertThat(summary).contains("| `elasticsearch: kes: bulk writer (n/m)#` | 8 | 42.1% |");
        assertThat(summary).contains("| `C# CompilerThre` | 10 | 52.6% |");
        assertThat(summary).contains("| `java/lang/System.arraycopy` | 6 | 75.0% |");
        assertThat(summary).doesNotContain("PhaseChaitin").doesNotContain("Thread.sleep");
        assertThat(summary)
                .contains("| `io.kes.connector.bulk.BulkBody.add` | 6 | 75.0% |")
                .contains("| `io.kes.connector.bulk.BulkWriter.write` | 2 | 25.0% |");
    }
}
