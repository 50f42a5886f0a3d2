package io.kes.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How saturated the host's CPUs were over a window: Linux's pressure stall information for CPU
 * ({@code /proc/pressure/cpu}, line {@code some}), the share of the window's wall time in which at
 * least one runnable task waited for a CPU. Every process of a bench run shares the host's cores
 * (the nodes, the broker, the producer, the job, the bench's own sampling): near 100% the run
 * measures the queue for the cores as much as the system under test, and its lags say so.
 */
final class HostCpuPressure {

    private static final Path PSI = Path.of("/proc/pressure/cpu");

    private HostCpuPressure() {}

    /** Microseconds some task waited for a CPU since boot; -1 where the kernel does not report it. */
    static long stalledMicros() {
        try {
            return parseSomeTotal(Files.readString(PSI));
        } catch (IOException | RuntimeException unreadable) {
            return -1;
        }
    }

    /** The share (0-1) of {@code windowNanos} the stall total grew by; NaN when either reading is missing. */
    static double share(long fromMicros, long toMicros, long windowNanos) {
        if (fromMicros < 0 || toMicros < 0 || windowNanos <= 0) {
            return Double.NaN;
        }
        return Math.min(1.0, (toMicros - fromMicros) * 1000.0 / windowNanos);
    }

    /** The {@code total=} of the {@code some} line of a {@code /proc/pressure/cpu} text. */
    static long parseSomeTotal(String psi) {
        for (String line : psi.split("\n")) {
            if (line.startsWith("some ")) {
                for (String field : line.trim().split("\\s+")) {
                    if (field.startsWith("total=")) {
                        return Long.parseLong(field.substring("total=".length()));
                    }
                }
            }
        }
        throw new IllegalArgumentException("no 'some ... total=' line in " + psi);
    }
}
