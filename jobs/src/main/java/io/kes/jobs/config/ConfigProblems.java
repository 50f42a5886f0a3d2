package io.kes.jobs.config;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The problems found while reading one config file, kept instead of thrown so that every one is
 * reported in one run. A part that fails is read as its fallback, and the parts built on it are
 * skipped rather than reported again as consequences.
 */
final class ConfigProblems {

    private final List<String> problems = new ArrayList<>();
    /** Key paths a misspelt key was taken for ("routes[0].index" for {@code indx}): their absence is that typo, not news. */
    private final Set<String> suggested = new HashSet<>();

    void add(String problem) {
        problems.add(problem);
    }

    void addAll(ConfigException e) {
        problems.addAll(e.problems());
    }

    void suggested(String keyPath) {
        suggested.add(keyPath);
    }

    boolean wasSuggested(String keyPath) {
        return suggested.contains(keyPath);
    }

    int count() {
        return problems.size();
    }

    /** {@code read}, or {@code fallback} with its problems kept when it throws a {@link ConfigException}. */
    <T> T attempt(Supplier<T> read, T fallback) {
        try {
            return read.get();
        } catch (ConfigException e) {
            addAll(e);
            return fallback;
        }
    }

    void attempt(Runnable check) {
        attempt(
                () -> {
                    check.run();
                    return null;
                },
                null);
    }

    /** Throws every problem found, if any. */
    void throwIfAny() {
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
    }
}
