package io.kes.torture;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SoakSamplerTest {

    @Test
    void theHeapAfterGcIsWhatTheLatestCollectionKept(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("gc-1.log");
        Files.write(
                log,
                List.of(
                        "[0.512s][info][gc] Using Serial",
                        "[3.101s][info][gc] GC(0) Pause Young (Allocation Failure) 280M->95M(1004M) 12.345ms",
                        "[5.220s][info][gc] GC(1) Pause Young (Allocation Failure) 370M->88M(1004M) 8.001ms",
                        "[7.400s][info][gc] GC(2) Pause Young (Allocation Failure) 365M->101M(1004M) 9.100ms"));

        assertThat(SoakSampler.heapAfterLatestGc(log)).isEqualTo(101);
        assertThat(SoakSampler.heapAfterLatestGc(dir.resolve("none.log")))
                .as("no log yet")
                .isEqualTo(-1);
    }

    @Test
    void aRunWhoseMeasuresStayFlatPassesAndOneWhoseThreadsClimbFails() {
        List<SoakSampler.Sample> flat = new ArrayList<>();
        List<SoakSampler.Sample> leaking = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            flat.add(new SoakSampler.Sample(i * 20L, 7, 120 + i % 3, 90, 300, 400, 9000, 500));
            leaking.add(new SoakSampler.Sample(i * 20L, 7, 120, 90 + 5L * i, 300, 400, 9000, 500));
        }
        // a restart's moment reads nothing (-1): not a value that could shrink or grow a median
        flat.set(5, new SoakSampler.Sample(100, -1, -1, -1, -1, -1, -1, -1));

        assertThat(SoakSampler.summary(flat))
                .last()
                .asString()
                .isEqualTo("soak: nothing grew from the first quarter to the last");
        assertThat(SoakSampler.summary(leaking))
                .anyMatch(l -> l.contains("threads") && l.contains("GREW"))
                .last()
                .asString()
                .startsWith(SoakSampler.GREW);
    }
}
