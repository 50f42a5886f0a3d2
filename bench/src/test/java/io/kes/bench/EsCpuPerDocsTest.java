package io.kes.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EsCpuPerDocsTest {

    @Test
    void cpuMillisecondsPerDocumentAreCpuSecondsPerThousandDocuments() {
        // 0.6 of a core for 60 s while 180,000 documents were indexed
        assertThat(new EsCpuPerDocs(36_000, 180_000).secondsPerThousandDocs()).isEqualTo(0.2);
    }

    @Test
    void nothingIndexedIsNotANumber() {
        assertThat(new EsCpuPerDocs(5_000, 0).secondsPerThousandDocs()).isNaN();
    }
}
