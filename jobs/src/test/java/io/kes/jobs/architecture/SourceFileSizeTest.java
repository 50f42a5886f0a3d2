package io.kes.jobs.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every main source file of every module but {@code bench/} stays small enough to read in one
 * sitting: a class past this has more than one job, and the next change adds a third.
 */
class SourceFileSizeTest {

    private static final int MAX_LINES = 350;

    @Test
    void everyMainSourceFileOutsideTheBenchHasAtMost350Lines() throws IOException {
        Path root = repositoryRoot();
        List<String> tooLong;
        try (Stream<Path> files = Files.walk(root)) {
            tooLong = files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> root.relativize(p).toString().contains("/src/main/"))
                    .filter(p -> !root.relativize(p).startsWith("bench"))
                    .filter(p -> lines(p) > MAX_LINES)
                    .map(p -> root.relativize(p) + " (" + lines(p) + " lines)")
                    .sorted()
                    .toList();
        }
        assertThat(tooLong)
                .as("main source files over %d lines: split each along the jobs it does", MAX_LINES)
                .isEmpty();
    }

    private static long lines(Path file) {
        try (Stream<String> lines = Files.lines(file)) {
            return lines.count();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + file, e);
        }
    }

    private static Path repositoryRoot() {
        Path here = Path.of("").toAbsolutePath();
        return Files.isDirectory(here.resolve("docs")) ? here : here.getParent();
    }
}
