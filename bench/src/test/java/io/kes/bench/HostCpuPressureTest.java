package io.kes.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class HostCpuPressureTest {

    @Test
    void theStallTotalComesFromTheSomeLine() {
        String psi = "some avg10=97.22 avg60=98.09 avg300=82.33 total=17595014412\n"
                + "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
        assertEquals(17_595_014_412L, HostCpuPressure.parseSomeTotal(psi));
    }

    @Test
    void aTextWithoutTheSomeLineIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> HostCpuPressure.parseSomeTotal("full total=3\n"));
    }

    @Test
    void theShareIsTheStallOverTheWindowAtMostAll() {
        assertEquals(0.25, HostCpuPressure.share(1_000_000, 1_250_000, 1_000_000_000L), 1e-9);
        assertEquals(1.0, HostCpuPressure.share(0, 5_000_000, 1_000_000_000L), 1e-9);
    }

    @Test
    void aMissingReadingGivesNoShare() {
        assertTrue(Double.isNaN(HostCpuPressure.share(-1, 5, 1_000_000_000L)));
    }
}
