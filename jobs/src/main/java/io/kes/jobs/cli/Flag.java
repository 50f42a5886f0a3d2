package io.kes.jobs.cli;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Every flag of {@code bin/kes run} and {@code bin/kes check}, with its meaning: parsing and
 * {@code --help} read this one list.
 */
public enum Flag {
    CONFIG("--config", "FILE", "the job's YAML config (required; every key in docs/config-reference.md)"),
    FLINK_CONF(
            "--flink-conf",
            "FILE",
            "Flink configuration for the embedded MiniCluster (bin/kes run passes checkpoints-config/local.yaml)"),
    RESTORE("--restore", "PATH", "start from this checkpoint (chk-<n> folder) or savepoint"),
    RESTORE_LATEST(
            "--restore-latest",
            null,
            "start from this job.name's newest completed checkpoint (refused if it read other topics)"),
    NO_CHECK("--no-check", null, "skip the check of Elasticsearch and Kafka before the job starts"),
    QUIET("--quiet", null, "no start banner and no progress lines (for scripts); errors are still printed"),
    DEBUG("--debug", null, "print stack traces on the console too (they always go to the log file)"),
    HELP("--help", null, "this help");

    public final String name;
    /** The value's placeholder, or null for a switch. */
    public final String value;

    public final String meaning;

    Flag(String name, String value, String meaning) {
        this.name = name;
        this.value = value;
        this.meaning = meaning;
    }

    /** The flags of {@code bin/kes run}. */
    public static final Set<Flag> RUN = EnumSet.allOf(Flag.class);
    /** The flags of {@code bin/kes check}. */
    public static final Set<Flag> CHECK = EnumSet.of(CONFIG, DEBUG, HELP);

    /** Parses {@code args} against {@code allowed}; switches map to "true". Unknown or incomplete flags throw {@link UsageException}. */
    public static Map<Flag, String> parse(String[] args, Set<Flag> allowed, String command) {
        Map<Flag, String> parsed = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            Flag flag = null;
            for (Flag f : allowed) {
                if (f.name.equals(args[i])) {
                    flag = f;
                }
            }
            if (flag == null) {
                throw new UsageException(
                        "unknown argument '" + args[i] + "' for " + command + "; see " + command + " --help");
            }
            if (flag.value == null) {
                parsed.put(flag, "true");
            } else if (i + 1 >= args.length) {
                throw new UsageException(flag.name + " needs a value: " + flag.name + " " + flag.value);
            } else {
                parsed.put(flag, args[++i]);
            }
        }
        if (parsed.containsKey(RESTORE) && parsed.containsKey(RESTORE_LATEST)) {
            throw new UsageException("give either --restore <path> or --restore-latest, not both");
        }
        return parsed;
    }

    /** {@code usage: ...}, a line per flag, and the exit codes. */
    public static String help(String command, String what, Set<Flag> flags) {
        List<String> lines = new ArrayList<>();
        lines.add("usage: " + command + " --config FILE [options]");
        lines.add(what);
        lines.add("");
        lines.add("options:");
        for (Flag f : flags) {
            String left = f.name + (f.value == null ? "" : " " + f.value);
            lines.add(String.format("  %-22s %s", left, f.meaning));
        }
        lines.add("");
        return String.join("\n", lines) + "\n" + ExitCode.help();
    }

    /** A wrong command line: exit code {@link ExitCode#CONFIG}, no stack trace. */
    public static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public UsageException(String message) {
            super(message);
        }
    }
}
