package io.kes.stack;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** A command-line tool run to its end in a child process (keytool, elasticsearch-users). */
final class CliTool {

    private CliTool() {}

    /** Waits up to 2 minutes for {@code p} to exit with 0, else fails with its output. */
    static void await(Process p, String what) throws IOException {
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException(what + " failed: " + out);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for " + what, e);
        }
    }
}
