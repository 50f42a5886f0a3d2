package io.kes.jobs.config;

import java.util.List;

/**
 * A configuration error: names the key, the value and the fix. One exception may carry every
 * problem of a config file ({@link #problems()}), so that a user fixes them all in one go instead
 * of one run per typo.
 */
public final class ConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    public ConfigException(String message) {
        super(message);
        this.problems = List.of(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
        this.problems = List.of(message);
    }

    /** All problems found; with one, the message is that problem alone. */
    public ConfigException(List<String> problems) {
        super(
                problems.size() == 1
                        ? problems.get(0)
                        : problems.size() + " errors in the config:\n  " + String.join("\n  ", problems));
        this.problems = List.copyOf(problems);
    }

    /**
     * Thrown where a part cannot be read because of a problem reported already (a required key
     * that was misspelt): it stops that part and adds nothing to the report.
     */
    static ConfigException alreadyReported() {
        return new ConfigException(List.of(), "a problem reported above");
    }

    private ConfigException(List<String> problems, String message) {
        super(message);
        this.problems = problems;
    }

    /** Each problem in one sentence or two, in the order the config was read. */
    public List<String> problems() {
        return problems;
    }
}
