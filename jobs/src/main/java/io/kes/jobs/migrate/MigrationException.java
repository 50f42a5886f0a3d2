package io.kes.jobs.migrate;

import java.util.List;

/**
 * A connector configuration kes cannot take over as it is: every problem found, each naming the
 * Connect option, why kes cannot honour it and what to change. {@code bin/kes migrate} prints them
 * all and exits with 2, as a wrong config does for {@code bin/kes run}.
 */
public final class MigrationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    public MigrationException(List<String> problems) {
        super(String.join("\n", problems));
        this.problems = List.copyOf(problems);
    }

    public MigrationException(String problem) {
        this(List.of(problem));
    }

    public List<String> problems() {
        return problems;
    }
}
