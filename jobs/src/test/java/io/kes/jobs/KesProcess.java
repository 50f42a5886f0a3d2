package io.kes.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.stack.JvmFlags;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The kes job in a child JVM, started the ways users start it: {@code bin/kes run} (the script
 * itself, so its classpath is what is tested) and the {@code flink run} jar with only what a Flink
 * installation provides beside it. In-process tests cannot see a missing runtime dependency: the
 * test classpath holds every scope.
 */
final class KesProcess implements AutoCloseable {

    static final Path MODULE = Path.of(System.getProperty("basedir", "")).toAbsolutePath();
    static final Path ROOT = MODULE.getParent();
    static final Path TARGET = MODULE.resolve("target");

    private final Process process;
    private final Path console;

    private KesProcess(Process process, Path console) {
        this.process = process;
        this.console = console;
    }

    /**
     * {@code bin/kes run <args>} with {@code KES_HOME=home}; {@code KES_NO_BUILD} keeps the script
     * from building (the test runs inside the build).
     */
    static KesProcess binKesRun(Path home, String... args) throws IOException {
        return binKes(home, "run", args);
    }

    /** {@code bin/kes <command> <args>}, as {@link #binKesRun}. */
    static KesProcess binKes(Path home, String subcommand, String... args) throws IOException {
        return binKesWithHeap(home, "768m", subcommand, args);
    }

    /** {@code bin/kes <command> <args>} in a JVM of {@code heap} ({@code KES_HEAP}). */
    static KesProcess binKesWithHeap(Path home, String heap, String subcommand, String... args) throws IOException {
        List<String> command =
                new ArrayList<>(List.of("bash", ROOT.resolve("bin/kes").toString(), subcommand));
        command.addAll(Arrays.asList(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(ROOT.toFile());
        builder.environment().put("KES_HOME", home.toString());
        builder.environment().put("KES_NO_BUILD", "1");
        builder.environment().put("KES_HEAP", heap);
        return start(builder, home);
    }

    /** {@code java -cp <classpath> io.kes.jobs.KesJob <args>}, logging as bin/kes does. */
    static KesProcess java(Path home, List<Path> classpath, String... args) throws IOException {
        return java(home, classpath, MODULE.resolve("config/log4j2-cli.properties"), args);
    }

    /** The same as bin/kes runs it ({@link #binKesRun}'s classpath), logging as {@code log4jConfig} says. */
    static KesProcess java(Path home, Path log4jConfig, String... args) throws IOException {
        List<Path> classpath = new ArrayList<>();
        classpath.add(TARGET.resolve("classes"));
        classpath.addAll(entries(TARGET.resolve("classpath.txt")));
        classpath.addAll(entries(TARGET.resolve("provided-classpath.txt")));
        classpath.add(TARGET.resolve("rpc/flink-rpc-akka.jar")); // as bin/kes: ClassPathRpcSystem
        return java(home, classpath, log4jConfig, args);
    }

    private static KesProcess java(Path home, List<Path> classpath, Path log4jConfig, String... args)
            throws IOException {
        List<String> command = new ArrayList<>(
                List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx768m"));
        command.addAll(JvmFlags.forFlink());
        command.addAll(List.of(
                "-Dlog4j2.configurationFile=" + log4jConfig,
                "-Dkes.log.file=" + home.resolve("logs/kes.log"),
                "-Dkes.cli=true",
                "-cp",
                classpath.stream().map(Path::toString).collect(Collectors.joining(":")),
                "io.kes.jobs.KesJob"));
        command.addAll(Arrays.asList(args));
        return start(new ProcessBuilder(command).directory(ROOT.toFile()), home);
    }

    /** The jar of {@code flink run}, with the provided-scope jars standing in for Flink's lib/ folder. */
    static KesProcess jobJar(Path home, String... args) throws IOException {
        List<Path> classpath = new ArrayList<>();
        classpath.add(TARGET.resolve("kes-job.jar"));
        classpath.addAll(entries(TARGET.resolve("provided-classpath.txt")));
        return java(home, classpath, args);
    }

    /** The jars listed in a classpath file written by maven-dependency-plugin's build-classpath. */
    static List<Path> entries(Path classpathFile) throws IOException {
        return Arrays.stream(Files.readString(classpathFile).trim().split(":"))
                .filter(s -> !s.isBlank())
                .map(Path::of)
                .toList();
    }

    /** checkpoints-config/local.yaml as shipped, with its checkpoint and savepoint folders in {@code home}. */
    static Path localFlinkConf(Path home) throws Exception {
        String local = Files.readString(ROOT.resolve("checkpoints-config/local.yaml"));
        String conf = local.replaceAll(
                        "(?m)^execution\\.checkpointing\\.dir:.*$",
                        "execution.checkpointing.dir: "
                                + home.resolve("checkpoints").toUri())
                .replaceAll(
                        "(?m)^execution\\.checkpointing\\.savepoint-dir:.*$",
                        "execution.checkpointing.savepoint-dir: "
                                + home.resolve("savepoints").toUri());
        assertThat(conf).contains(home.resolve("checkpoints").toUri().toString());
        Path file = home.resolve("flink-conf.yaml");
        Files.writeString(file, conf);
        return file;
    }

    private static KesProcess start(ProcessBuilder builder, Path home) throws IOException {
        Files.createDirectories(home.resolve("logs"));
        Path console = home.resolve("console-" + System.nanoTime() + ".txt");
        builder.redirectErrorStream(true).redirectOutput(console.toFile());
        return new KesProcess(builder.start(), console);
    }

    /** Waits for the process to end; false when it is still running after {@code timeout}. */
    boolean awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    int exitCode() {
        return process.exitValue();
    }

    /** What the process printed (stdout and stderr) so far. */
    String console() {
        try {
            return Files.readString(console);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits until the console shows {@code expected}, failing with the console when the process ends or time runs out. */
    void awaitConsole(String expected, Duration timeout) throws InterruptedException {
        awaitConsole(c -> c.contains(expected), "'" + expected + "'", timeout);
    }

    void awaitConsole(Predicate<String> condition, String what, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.test(console())) {
            if (!process.isAlive() && !condition.test(console())) {
                throw new AssertionError("the job ended (exit " + process.exitValue() + ") without printing " + what
                        + ":\n" + console());
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no " + what + " on the console after " + timeout + ":\n" + console());
            }
            Thread.sleep(200);
        }
    }

    /** kill -9, as a crash would; waits until it is gone. */
    void kill() throws InterruptedException {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
