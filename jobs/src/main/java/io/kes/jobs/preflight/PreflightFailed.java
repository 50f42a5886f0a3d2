package io.kes.jobs.preflight;

import java.util.List;

/** The preflight found something that keeps the job from working: a host, credentials, a topic. Names the setting to fix. */
public final class PreflightFailed extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient PreflightReport report;

    PreflightFailed(PreflightReport report) {
        super(message(report.failures()));
        this.report = report;
    }

    public PreflightReport report() {
        return report;
    }

    private static String message(List<String> failures) {
        return failures.size() == 1
                ? failures.get(0)
                : failures.size() + " problems:\n  " + String.join("\n  ", failures);
    }
}
