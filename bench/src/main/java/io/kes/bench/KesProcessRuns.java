package io.kes.bench;

import io.kes.stack.Http;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * kes as a user runs it: {@code bin/kes run --config <yaml>} as a process of its own
 * ({@code KES_NO_BUILD=1}, {@code KES_HEAP}), a bounded job from the topic's earliest offsets into
 * a pre-created index. Its clock runs from process start to process exit: JVM start-up, the
 * preflight check, the MiniCluster and web UI, the job, its final checkpoint. {@link KesRuns}
 * measures the same job in a warm shared MiniCluster instead, from the first record read.
 *
 * <p>Heap comes from the JVM's own GC log ({@code -Xlog:gc:file=...} through
 * {@code JAVA_TOOL_OPTIONS}, which bin/kes passes on untouched): the largest occupancy before any
 * collection (how full the heap got; G1 lets it fill before it collects) and the largest after one
 * (what was still live: the job's buffers and Flink's own). No attach, no polling that could miss
 * a peak between two samples.
 */
final class KesProcessRuns {

    /**
     * The Kafka consumer's own fetch defaults, which kes used until it held each fetch for 64 KB or
     * 100 ms (2026-12-03): a mode with them measures what that change costs or saves.
     */
    static final String EAGER_FETCH = "fetch.min.bytes: 1, fetch.max.wait.ms: 500";

    /** A G1 pause line's occupancy before and after, e.g. {@code 612M->88M(1024M)}. */
    private static final Pattern GC_OCCUPANCY = Pattern.compile("(\\d+)([KMG])->(\\d+)([KMG])\\(\\d+[KMG]\\)");

    /**
     * One run.
     *
     * @param timed              the process as {@link ProcessClock} times it: start to exit, start-up, steady window, CPU
     * @param peakHeapMb         largest heap occupancy before a GC, from the GC log; NaN with no GC
     * @param liveHeapMb         largest heap occupancy after a GC
     */
    record Result(ProcessClock.Result timed, double peakHeapMb, double liveHeapMb, boolean outOfMemory) {
        int exitCode() {
            return timed.exitCode();
        }
    }

    private final BenchOptions options;
    private final BenchTopic topic;
    private final Http es;
    private final String esUrl;
    private final ClientCpu clientCpu;

    KesProcessRuns(BenchOptions options, BenchTopic topic, Http es, String esUrl, ClientCpu clientCpu) {
        this.options = options;
        this.topic = topic;
        this.es = es;
        this.esUrl = esUrl;
        this.clientCpu = clientCpu;
    }

    /**
     * Runs the job with {@code topology} (keyed or chained), {@code bulk.linger} and {@code
     * kafkaProperties} into {@code target} ({@link #writeConfig}; its index created by the caller)
     * until the process exits; {@code index} names the run's folder and job.
     */
    Result run(String index, String target, String topology, double lingerSeconds, String kafkaProperties, String heap)
            throws Exception {
        Path dir = options.work.resolve("kes-run-" + index).toAbsolutePath();
        Path config = writeConfig(
                dir,
                List.of(esUrl),
                topic.bootstrap(),
                topic.name(),
                index,
                options.parallelism,
                true,
                "topology: " + topology + ", linger: " + Math.round(lingerSeconds * 1000) + "ms",
                target,
                kafkaProperties);
        Path gcLog = dir.resolve("gc.log");
        Path console = dir.resolve("console.txt");
        ProcessBuilder builder = builder(dir, config, heap);
        Path profile = dir.resolve("profile.collapsed");
        Files.deleteIfExists(profile);
        builder.environment()
                .put(
                        "JAVA_TOOL_OPTIONS",
                        "-Xlog:gc:file=" + gcLog + (options.profile ? " " + profilerAgent(profile) : ""));
        long docs = topic.docsFrom(new long[options.partitions]);
        ProcessClock.Result timed = ProcessClock.time(
                builder, es, index, docs, clientCpu, 20, "bin/kes run (console: " + console + ")", () -> {
                    try {
                        return SteadyWindow.stillReading(Files.readAllLines(console), docs);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
        if (Files.exists(profile)) {
            Files.createDirectories(options.out);
            Files.writeString(
                    options.out.resolve("profile-" + index.replaceAll("-r\\d+$", "") + ".md"),
                    "# Profile of `bin/kes run` ("
                            + index
                            + ")\n\nasync-profiler as an agent of the kes process, process start to exit; raw collapsed stacks: `"
                            + profile + "`.\n\n"
                            + Profiler.cpuSummary(
                                    Files.readAllLines(profile),
                                    "every thread of the bin/kes run process (its main thread: start-up and the MiniCluster), process start to exit"));
        }
        String printed = Files.readString(console) + logs(dir.resolve("home/logs"));
        return new Result(timed, heapMb(gcLog, 1), heapMb(gcLog, 3), printed.contains("OutOfMemoryError"));
    }

    /**
     * The job's YAML in {@code dir}: the topic from its earliest offsets into {@code target} (the
     * route's target and any other route option: {@code index: x}, {@code data_stream: x, routing:
     * level}) with Kafka-coordinate ids, {@code bounded} or following the topic, and {@code bulk} as
     * the body of the {@code bulk:} map (any sink option, e.g. {@code shard_grouping: false}; empty:
     * defaults), {@code kafkaProperties} as the body of {@code kafka.properties} (consumer properties;
     * empty: none). {@code index} names the job and its consumer group.
     */
    static Path writeConfig(
            Path dir,
            List<String> esUrls,
            String bootstrap,
            String topic,
            String index,
            int parallelism,
            boolean bounded,
            String bulk,
            String target,
            String kafkaProperties)
            throws IOException {
        Files.createDirectories(dir);
        Path config = dir.resolve("kes.yaml");
        Files.writeString(
                config,
                String.join(
                        "\n",
                        "elasticsearch: {hosts: [" + String.join(", ", esUrls) + "]}",
                        "kafka: {bootstrap_servers: \"" + bootstrap + "\", group_id: " + index + "-"
                                + System.currentTimeMillis() + ", starting_offsets: earliest"
                                + (kafkaProperties.isBlank() ? "" : ", properties: {" + kafkaProperties + "}") + "}",
                        "job: {name: " + index + ", parallelism: " + parallelism
                                + ", checkpoint_interval: 10s, bounded: " + bounded + "}",
                        bulk.isBlank() ? "" : "bulk: {" + bulk + "}",
                        "routes:",
                        "  - {topics: [" + topic + "], " + target + ", id: kafka}",
                        ""));
        return config;
    }

    /**
     * Waits (up to 3 minutes) until bin/kes's class archive for {@code run} is built: a first run lists
     * its classes and builds the archive in the background once the list stops growing. Says what it found.
     */
    static String awaitClassArchive() throws InterruptedException, IOException {
        Path dir = Path.of("jobs/target/cds");
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (System.nanoTime() < deadline) {
            Path newestList;
            try (var files = Files.list(dir)) {
                newestList = files.filter(f -> f.getFileName().toString().matches("run-.*\\.classlist"))
                        .max(java.util.Comparator.comparing(f -> f.toFile().lastModified()))
                        .orElse(null);
            } catch (java.nio.file.NoSuchFileException e) {
                newestList = null;
            }
            if (newestList == null) {
                return "no class archive (KES_CDS=off, or the job's classes are newer than its jar)";
            }
            String base = newestList.toString().replaceFirst("\\.classlist$", "");
            if (Files.exists(Path.of(base + ".jsa"))) {
                return "class archive ready";
            }
            Thread.sleep(1000);
        }
        return "class archive not built within 3 minutes: the measured runs start without it";
    }

    /**
     * {@code bin/kes run --config <config>} with the shipped Flink configuration, its home, console
     * ({@code console.txt}) and GC log ({@code gc.log}) in {@code dir}, not rebuilt, with {@code heap}.
     */
    static ProcessBuilder builder(Path dir, Path config, String heap) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(
                        "bash",
                        "bin/kes",
                        "run",
                        "--config",
                        config.toString(),
                        "--flink-conf",
                        flinkConf(dir).toString())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("console.txt").toFile());
        builder.environment().put("KES_HOME", dir.resolve("home").toString());
        builder.environment().put("KES_NO_BUILD", "1");
        builder.environment().put("KES_HEAP", heap);
        builder.environment().put("JAVA_TOOL_OPTIONS", "-Xlog:gc:file=" + dir.resolve("gc.log"));
        return builder;
    }

    /**
     * The last lines {@code bin/kes run} printed, for a failure's message: its console, where it
     * says what is wrong and what to do (its log files hold the stack traces).
     */
    static String printedTail(Path dir, int lines) throws IOException {
        Path console = dir.resolve("console.txt");
        List<String> all = (Files.exists(console) ? Files.readAllLines(console) : List.<String>of())
                .stream()
                        .filter(l -> !l.isBlank() && !l.startsWith("Picked up JAVA_TOOL_OPTIONS"))
                        .toList();
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }

    /**
     * async-profiler as an agent of the kes process ({@code --profile}): CPU samples of every thread
     * from JVM start, written as collapsed stacks to {@code out} when the process exits. The agent
     * library comes out of the async-profiler jar on the bench's class path.
     */
    private String profilerAgent(Path out) throws IOException {
        Path lib = options.work.resolve("libasyncProfiler.so").toAbsolutePath();
        if (!Files.exists(lib)) {
            try (var in = KesProcessRuns.class.getResourceAsStream("/linux-"
                    + (System.getProperty("os.arch").contains("aarch64") ? "arm64" : "x64") + "/libasyncProfiler.so")) {
                if (in == null) {
                    throw new IOException("no async-profiler library for this machine in the bench's class path");
                }
                Files.copy(in, lib);
            }
        }
        return "-agentpath:" + lib + "=start,event=cpu,interval=10ms,threads,file=" + out + ",collapsed";
    }

    /** checkpoints-config/local.yaml as shipped, with its checkpoint and savepoint folders in the run's folder. */
    private static Path flinkConf(Path dir) throws IOException {
        String conf = Files.readString(Path.of("checkpoints-config/local.yaml"))
                .replaceAll(
                        "(?m)^execution\\.checkpointing\\.dir:.*$",
                        "execution.checkpointing.dir: "
                                + dir.resolve("checkpoints").toUri())
                .replaceAll(
                        "(?m)^execution\\.checkpointing\\.savepoint-dir:.*$",
                        "execution.checkpointing.savepoint-dir: "
                                + dir.resolve("savepoints").toUri());
        Path file = dir.resolve("flink-conf.yaml");
        Files.writeString(file, conf);
        return file;
    }

    /** Every log file bin/kes wrote (stack traces go there, not to the console). */
    private static String logs(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return "";
        }
        StringBuilder all = new StringBuilder();
        try (var files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                all.append(Files.readString(f));
            }
        }
        return all.toString();
    }

    /** The largest heap occupancy in a {@code -Xlog:gc} file, in MB: before a collection ({@code group} 1) or after one (3). */
    static double heapMb(Path gcLog, int group) throws IOException {
        return Files.exists(gcLog) ? heapMb(Files.readAllLines(gcLog), group) : Double.NaN;
    }

    static double heapMb(List<String> gcLog, int group) {
        double peak = Double.NaN;
        for (String line : gcLog) {
            Matcher m = GC_OCCUPANCY.matcher(line);
            if (m.find()) {
                double mb = Long.parseLong(m.group(group))
                        * switch (m.group(group + 1)) {
                            case "K" -> 1 / 1024.0;
                            case "G" -> 1024.0;
                            default -> 1.0;
                        };
                peak = Double.isNaN(peak) ? mb : Math.max(peak, mb);
            }
        }
        return peak;
    }
}
