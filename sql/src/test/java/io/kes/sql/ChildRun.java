package io.kes.sql;

import io.kes.stack.ServerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A command run to its end, its output (stdout and stderr) in a log file. On a timeout, or if the
 * test is interrupted, the whole process tree is killed: a SQL client or a Python script starts
 * JVMs of its own, which would otherwise outlive the test.
 */
record ChildRun(List<String> command, int exitCode, Path log, Duration took) {

    static ChildRun of(List<String> command, Map<String, String> env, Path workDir, Path log, Duration timeout)
            throws IOException, InterruptedException {
        Files.createDirectories(log.getParent());
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(workDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        builder.environment().putAll(env);
        long start = System.nanoTime();
        Process process = builder.start();
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(String.join(" ", command) + " did not end within " + timeout
                        + "; killed. Its output (" + log + "):\n" + ServerProcess.logTail(log, 40));
            }
            return new ChildRun(command, process.exitValue(), log, Duration.ofNanos(System.nanoTime() - start));
        } finally {
            killTree(process.toHandle());
        }
    }

    boolean succeeded() {
        return exitCode == 0;
    }

    String output() throws IOException {
        return Files.readString(log);
    }

    /** What a failure message shows: the command, its exit code and the end of its output. */
    String describe() {
        return String.join(" ", command) + " exited with " + exitCode + " after " + took.toSeconds()
                + " s; the end of its output (" + log + "):\n" + ServerProcess.logTail(log, 40);
    }

    /** Descendants first, then the process: nothing started by the command is left running. */
    static void killTree(ProcessHandle root) {
        List<ProcessHandle> tree = new ArrayList<>(root.descendants().toList());
        Collections.reverse(tree);
        tree.add(root);
        tree.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle p : tree) {
            p.onExit().orTimeout(30, TimeUnit.SECONDS).exceptionally(e -> p).join();
        }
    }
}
