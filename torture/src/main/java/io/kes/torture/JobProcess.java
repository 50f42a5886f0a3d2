package io.kes.torture;

import io.kes.stack.JvmFlags;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The kes job in a child JVM, started the way {@code bin/kes run} starts it ({@code jobs/target/classes}
 * plus {@code jobs/target/classpath.txt}, main {@code io.kes.jobs.KesJob}), so that it can be
 * killed with SIGKILL and restored with {@code --restore-latest} like a real deployment.
 */
final class JobProcess {

    /** The job's config file at a parallelism, written before each start. */
    interface Config {
        Path at(int parallelism) throws IOException;
    }

    private final Path root;
    private final Config config;
    private final Path flinkConf;
    private final Path checkpoints;
    private final Path log;
    /** The job's Flink REST API ({@code rest.port} in its Flink configuration). */
    private final FlinkRest rest;

    private Process process;
    private int starts;
    private int parallelism;

    JobProcess(Path root, Config config, int parallelism, Path flinkConf, int restPort, Path checkpoints, Path log) {
        this.root = root;
        this.rest = new FlinkRest(restPort);
        this.config = config;
        this.parallelism = parallelism;
        this.flinkConf = flinkConf;
        this.checkpoints = checkpoints;
        this.log = log;
        // A child JVM outlives its parent: never leave a job writing after the suite is gone.
        Runtime.getRuntime().addShutdownHook(new Thread(this::kill, "kes-torture-kill-job"));
    }

    /**
     * Starts the job at its current parallelism; from this job's newest completed checkpoint when
     * there is one and {@code restore} says so.
     */
    synchronized void start(boolean restore) {
        start(restore && hasCompletedCheckpoint() ? List.of("--restore-latest") : List.of());
    }

    /**
     * {@code flink stop} as before an upgrade: a savepoint without drain through the REST API into
     * {@code savepoints/} beside the checkpoints, which must complete within {@code timeout} whatever
     * the writer is doing (the job then finishes and its process exits), then a start from that
     * savepoint. Returns the savepoint's location.
     */
    synchronized Path stopWithSavepointAndResume(Duration timeout) throws IOException, InterruptedException {
        Path savepoints = checkpoints.resolveSibling("savepoints");
        List<Path> before = savepointsIn(savepoints);
        FlinkRest.Stop stop = rest.triggerStopWithSavepoint(savepoints);
        if (!waitFor((int) timeout.toSeconds())) {
            String status;
            try {
                status = rest.status(stop);
            } catch (IOException | RuntimeException e) {
                status = "unknown (" + e + ")";
            }
            throw new IllegalStateException("the stop with a savepoint did not complete within " + timeout.toSeconds()
                    + " s; Flink says " + status + " (see " + log + ")");
        }
        Path savepoint = savepointsIn(savepoints).stream()
                .filter(p -> !before.contains(p))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("the job exited with code " + process.exitValue()
                        + " after the stop without a savepoint in " + savepoints + " (see " + log + ")"));
        start(List.of("--restore", savepoint.toUri().toString()));
        return savepoint;
    }

    /** The complete savepoints in {@code dir}: folders {@code savepoint-*} with their {@code _metadata}, which Flink writes last. */
    private static List<Path> savepointsIn(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> folders = Files.list(dir)) {
            return folders.filter(p -> p.getFileName().toString().startsWith("savepoint-"))
                    .filter(p -> Files.exists(p.resolve("_metadata")))
                    .toList();
        }
    }

    private void start(List<String> restoreFlags) {
        Path configFile;
        try {
            configFile = config.at(parallelism);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the job's config at parallelism " + parallelism, e);
        }
        List<String> command = new ArrayList<>(List.of(
                javaExecutable(),
                "-Xmx1g",
                "-XX:+UseSerialGC",
                // each start's collections in a log of its own (%p: its pid), read by the soak (SoakSampler)
                "-Xlog:gc:file=" + log.resolveSibling("gc-%p.log")));
        command.addAll(JvmFlags.forFlink());
        command.addAll(List.of(
                "-Dlog4j2.configurationFile=" + root.resolve("jobs/config/log4j2-cli.properties"),
                "-Dkes.log.file=" + log.resolveSibling("kes.log"),
                "-Dkes.cli=true",
                // forgets and primary-location reads every second instead of every 10 min / 30 s,
                // so that a schedule's faults cross them (io.kes.connector.internal.Housekeeping)
                "-Dkes.internal.forget-idle-targets-ms=1000",
                "-Dkes.internal.primary-refresh-ms=1000",
                "-cp",
                classpath(),
                "io.kes.jobs.KesJob",
                "--config",
                configFile.toString(),
                "--flink-conf",
                flinkConf.toString(),
                // faults are injected around starts on purpose: no preflight to refuse them, no progress lines in the
                // log
                "--no-check",
                "--quiet"));
        command.addAll(restoreFlags);
        try {
            Files.writeString(
                    log,
                    "\n==== start " + (++starts) + " at parallelism " + parallelism + ": "
                            + String.join(" ", command.subList(command.indexOf("--config"), command.size())) + "\n",
                    java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the kes job: " + String.join(" ", command), e);
        }
    }

    /**
     * A user scaling the job: SIGKILL (as a crash would: the job must restore exact from its
     * newest checkpoint whatever it was doing), then a start at {@code newParallelism} from that
     * checkpoint. Returns when the old process was gone.
     */
    synchronized Instant restartAt(int newParallelism) {
        kill();
        Instant gone = Instant.now(); // a checkpoint written after this is the new run's
        parallelism = newParallelism;
        start(true);
        return gone;
    }

    /** The running job's process id; -1 when none runs. */
    synchronized long pid() {
        return process != null && process.isAlive() ? process.pid() : -1;
    }

    /** The job's Flink REST API. */
    FlinkRest rest() {
        return rest;
    }

    /** The GC log of the job's JVM with process id {@code pid} (each start writes its own). */
    Path gcLog(long pid) {
        return log.resolveSibling("gc-" + pid + ".log");
    }

    synchronized int parallelism() {
        return parallelism;
    }

    /** SIGKILL, as a crash or an OOM killer would. */
    synchronized void kill() {
        if (process != null) {
            process.destroyForcibly();
            waitFor(30);
        }
    }

    /** SIGTERM, SIGKILL when it does not exit within 30 s. */
    synchronized void stop() {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!waitFor(30)) {
                process.destroyForcibly();
                waitFor(30);
            }
        }
    }

    synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    synchronized int exitValue() {
        return process.exitValue();
    }

    Path log() {
        return log;
    }

    boolean hasCompletedCheckpoint() {
        return newestCheckpoint().isPresent();
    }

    /**
     * When this job's newest completed checkpoint was written (its {@code _metadata}, which Flink
     * writes last); empty when it has none.
     */
    Optional<Instant> newestCheckpoint() {
        if (!Files.isDirectory(checkpoints)) {
            return Optional.empty();
        }
        try (Stream<Path> files = Files.walk(checkpoints, 5)) { // <dir>/<job name>/<job id>/chk-N/_metadata
            return files.filter(p -> p.getFileName().toString().equals("_metadata")
                            && p.getParent().getFileName().toString().startsWith("chk-"))
                    .map(JobProcess::modified)
                    .flatMap(Optional::stream)
                    .max(Instant::compareTo);
        } catch (IOException | UncheckedIOException raceWithFlinkDeletingOldOnes) {
            return Optional.empty();
        }
    }

    private static Optional<Instant> modified(Path file) {
        try {
            return Optional.of(Files.getLastModifiedTime(file).toInstant());
        } catch (IOException deletedMeanwhile) {
            return Optional.empty();
        }
    }

    private boolean waitFor(int seconds) {
        try {
            return process.waitFor(seconds, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** As bin/kes: the job's classes, its runtime jars, and what a Flink cluster would provide. */
    private String classpath() {
        StringBuilder cp = new StringBuilder(root.resolve("jobs/target/classes").toString());
        for (String name : List.of("classpath.txt", "provided-classpath.txt")) {
            Path file = root.resolve("jobs/target").resolve(name);
            try {
                cp.append(':').append(Files.readString(file).trim());
            } catch (IOException e) {
                throw new UncheckedIOException(
                        file + " is missing: build the job first (./mvnw -B -q install -DskipTests)", e);
            }
        }
        // as bin/kes: Flink's RPC system from the class path (io.kes.jobs.cli.ClassPathRpcSystem)
        cp.append(':').append(root.resolve("jobs/target/rpc/flink-rpc-akka.jar"));
        return cp.toString();
    }

    private static String javaExecutable() {
        return ProcessHandle.current().info().command().orElse("java");
    }

    /** The checkout: {@code -Dkes.root} (bin/kes sets it), else the first folder upwards holding the job's build. */
    static Path findRoot() {
        String configured = System.getProperty("kes.root");
        if (configured != null) {
            return Path.of(configured).toAbsolutePath();
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("jobs/target/classpath.txt"))) {
                return dir;
            }
        }
        throw new IllegalStateException(
                "no jobs/target/classpath.txt in this folder or above: build with ./mvnw -B -q install "
                        + "-DskipTests, or pass -Dkes.root=<checkout>");
    }
}
