package io.kes.torture;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JobFilesTest {

    @Test
    void aTopologyNamedInBulkIsTheOneEveryScheduleRunsAndReports() {
        assertThat(JobFiles.topology("{max_docs: 250, topology: keyed}", "chained"))
                .isEqualTo("keyed");
        assertThat(JobFiles.topology("{max_docs: 250}", "chained"))
                .as("schedules alternate")
                .isEqualTo("chained");
    }
}
