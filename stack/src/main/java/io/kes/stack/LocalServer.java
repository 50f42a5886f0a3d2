package io.kes.stack;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The lifecycle every server of the stack shares (Elasticsearch, OpenSearch, Kafka): start (again,
 * after a stop or kill: same data) and wait until ready, graceful stop, kill -9, pause/resume, the
 * log file and its tail. A server says how to launch itself and how to tell it is ready; this class
 * does the rest, so a new kind of server is only those two steps.
 */
public abstract class LocalServer implements AutoCloseable {

    private final Path nodeDir;
    private final boolean detach;
    private ServerProcess process;

    protected LocalServer(Path nodeDir, boolean detach) {
        this.nodeDir = nodeDir;
        this.detach = detach;
    }

    /** For messages: "Elasticsearch 9.5.4", "Kafka". */
    public abstract String displayName();

    public abstract Path logFile();

    /** Prepares the node folder and starts the process (through {@link #spawn}). */
    protected abstract ServerProcess launch();

    /** Empty when the server is ready, else why not yet (shown if start-up times out); may throw while it does not answer. */
    protected abstract Optional<String> notReadyBecause() throws Exception;

    /**
     * Runs once the server is ready, at every start: set-up that needs it answering (a secured
     * node's users and API key). If it fails the server is killed, since nobody holds it yet and
     * it would outlive the test JVM.
     */
    protected void afterReady() throws Exception {}

    protected Duration startTimeout() {
        return Duration.ofSeconds(180);
    }

    public Path nodeDir() {
        return nodeDir;
    }

    /** Starts the server unless it runs, and waits until it is ready. */
    public synchronized LocalServer start() {
        if (process != null && process.isAlive()) {
            return this;
        }
        process = launch();
        awaitReady();
        try {
            afterReady();
        } catch (Exception e) {
            String tail = process.logTail(40);
            process.kill();
            throw new IllegalStateException(
                    "could not set up " + this + " after it started: " + e.getMessage() + "; log tail:\n" + tail, e);
        }
        return this;
    }

    /**
     * @param runAs   an unprivileged user to run as, or null for the current one
     * @param pidFile where {@code bin/kes local} finds the process again, or null
     */
    protected final ServerProcess spawn(List<String> command, Map<String, String> env, String runAs, Path pidFile) {
        return ServerProcess.start(displayName(), command, env, nodeDir, logFile(), runAs, detach, pidFile);
    }

    private void awaitReady() {
        Duration timeout = startTimeout();
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "no answer yet";
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        displayName() + " exited during start-up; log tail:\n" + process.logTail(60));
            }
            try {
                Optional<String> notReady = notReadyBecause();
                if (notReady.isEmpty()) {
                    return;
                }
                last = notReady.get();
            } catch (Exception notYetAnswering) {
                last = notYetAnswering.toString();
            }
            sleep(300);
        }
        String tail = process.logTail(60);
        process.kill();
        throw new IllegalStateException(
                displayName() + " was not ready after " + timeout + " (" + last + "); log tail:\n" + tail);
    }

    /** Graceful stop; the data stays, {@link #start()} brings the server back. */
    public synchronized void stop() {
        if (process != null) {
            process.stop(Duration.ofSeconds(30));
        }
    }

    /** kill -9, as a crash would: acknowledged writes that were not fsynced are lost. */
    public synchronized void kill() {
        if (process != null) {
            process.kill();
        }
    }

    /** Freezes the server (SIGSTOP): it keeps its connections but answers nothing until {@link #resume()}. */
    public synchronized void pause() {
        process.signal("STOP");
    }

    public synchronized void resume() {
        process.signal("CONT");
    }

    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    public Optional<ServerProcess> process() {
        return Optional.ofNullable(process);
    }

    public String logTail(int lines) {
        return ServerProcess.logTail(logFile(), lines);
    }

    @Override
    public void close() {
        stop();
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
