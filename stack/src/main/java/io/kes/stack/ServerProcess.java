package io.kes.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A server running as a child process whose output goes to a log file. Can run under another user
 * (Elasticsearch refuses root) and detached in its own session, so that {@code bin/kes local up}
 * can exit and leave it running; it is then found again through its pid file.
 */
public final class ServerProcess {

    private final String name;
    private final ProcessHandle handle;
    private final Path logFile;

    private ServerProcess(String name, ProcessHandle handle, Path logFile) {
        this.name = name;
        this.handle = handle;
        this.logFile = logFile;
    }

    /**
     * @param runAs   an unprivileged user to run as, or null for the current one
     * @param detach  start in a new session (survives the parent and its terminal)
     * @param pidFile where to record the pid, or null
     */
    public static ServerProcess start(
            String name,
            List<String> command,
            Map<String, String> env,
            Path workDir,
            Path logFile,
            String runAs,
            boolean detach,
            Path pidFile) {
        List<String> full = new ArrayList<>();
        if (detach) {
            full.add("setsid");
        }
        if (runAs != null) {
            // runuser keeps the environment we set below; `env` makes that explicit for the child.
            full.addAll(List.of("runuser", "-u", runAs, "--", "env"));
            env.forEach((k, v) -> full.add(k + "=" + v));
        }
        full.addAll(command);
        ProcessBuilder pb = new ProcessBuilder(full)
                .directory(workDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        pb.environment().putAll(env);
        try {
            Process process = pb.start();
            if (pidFile != null) {
                Files.writeString(pidFile, Long.toString(process.pid()));
            }
            return new ServerProcess(name, process.toHandle(), logFile);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + name + ": " + String.join(" ", full), e);
        }
    }

    /** The process recorded in a pid file, if it still runs. */
    public static Optional<ServerProcess> fromPidFile(String name, Path pidFile, Path logFile) {
        try {
            if (!Files.exists(pidFile)) {
                return Optional.empty();
            }
            long pid = Long.parseLong(Files.readString(pidFile).trim());
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).map(h -> new ServerProcess(name, h, logFile));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    public boolean isAlive() {
        return handle.isAlive();
    }

    public long pid() {
        return handle.pid();
    }

    public Path logFile() {
        return logFile;
    }

    /** Graceful stop: SIGTERM to the whole tree, SIGKILL after the grace period. */
    public void stop(Duration grace) {
        List<ProcessHandle> tree = tree();
        tree.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + grace.toNanos();
        for (ProcessHandle p : tree) {
            long left = deadline - System.nanoTime();
            try {
                p.onExit().get(Math.max(left, 1), TimeUnit.NANOSECONDS);
            } catch (Exception timeoutOrInterrupt) {
                p.destroyForcibly();
            }
        }
        killAndWait();
    }

    /** kill -9 of the whole tree, as a crash would. */
    public void kill() {
        tree().forEach(ProcessHandle::destroyForcibly);
        killAndWait();
    }

    private void killAndWait() {
        for (ProcessHandle p : tree()) {
            p.destroyForcibly();
            try {
                p.onExit().get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(name + " (pid " + p.pid() + ") did not exit after SIGKILL", e);
            }
        }
    }

    /** SIGSTOP (pause) or SIGCONT (resume) to the whole tree: a frozen server, as a long GC pause looks. */
    public void signal(String signal) {
        for (ProcessHandle p : tree()) {
            int rc = UnprivilegedUser.run(List.of("kill", "-" + signal, Long.toString(p.pid())));
            if (rc != 0 && p.isAlive()) {
                throw new IllegalStateException("kill -" + signal + " " + p.pid() + " failed with exit code " + rc);
            }
        }
    }

    /** Descendants first, so that runuser/setsid wrappers never outlive the server. */
    private List<ProcessHandle> tree() {
        List<ProcessHandle> all = new ArrayList<>(handle.descendants().toList());
        java.util.Collections.reverse(all);
        all.add(handle);
        return all;
    }

    /** The last lines of the server's log, for failure reports. */
    public String logTail(int lines) {
        return logTail(logFile, lines);
    }

    public static String logTail(Path logFile, int lines) {
        try {
            List<String> all = Files.readAllLines(logFile);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log at " + logFile + ": " + e.getMessage() + ")";
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + handle.pid() + ", log " + logFile + ")";
    }
}
