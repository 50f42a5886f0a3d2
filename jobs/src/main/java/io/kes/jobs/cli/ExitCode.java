package io.kes.jobs.cli;

/** How {@code bin/kes run} and {@code bin/kes check} end; documented in docs/operations.md and in {@code --help}. */
public enum ExitCode {
    /** Done: the check passed, or a bounded job finished. */
    OK(0, "ok (the check passed, or a bounded job finished)"),
    /** The job ran and failed with an error no restart can cure. */
    JOB_FAILED(1, "the job failed (the error is printed; its stack trace is in the log file)"),
    /** The config file or the command line is wrong: every problem is listed with its key. */
    CONFIG(2, "the config or the command line is wrong (every problem listed, with the key to fix)"),
    /** Elasticsearch or Kafka cannot be reached, refuses kes's credentials or privileges, or a topic is missing. */
    CANNOT_CONNECT(
            3,
            "cannot connect: Elasticsearch or Kafka unreachable, credentials or privileges refused, or a topic missing "
                    + "(the setting to fix is named)");

    public final int code;
    public final String meaning;

    ExitCode(int code, String meaning) {
        this.code = code;
        this.meaning = meaning;
    }

    /** The table for {@code --help}. */
    public static String help() {
        StringBuilder out = new StringBuilder("exit codes:\n");
        for (ExitCode c : values()) {
            out.append(String.format("  %d  %s%n", c.code, c.meaning));
        }
        return out.toString();
    }
}
