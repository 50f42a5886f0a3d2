package io.kes.bench;

import io.kes.connector.KafkaCoordinateId;
import io.kes.stack.Http;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Measured runs of Apache Flink's own Elasticsearch sink ({@code flink-connector-elasticsearch7}
 * 3.0.1-1.17 on Flink 1.17, module {@code bench-official}) over the same slice of the same topic
 * into the same index settings with the same ids as kes. It runs in a JVM of its own, launched
 * from {@code bench-official/target/classpath.txt}, so Flink 1.17 never meets kes's Flink 2.2; like
 * kes's MiniCluster, that JVM and its MiniCluster serve every run (see {@code OfficialSinkJob}).
 *
 * <p>Its clock: from the first record read (the job says so on stdout) until the index's primaries
 * have indexed every document ({@code _stats/indexing index_total}, polled every {@value #POLL_MS} ms: the
 * sink has no acknowledged-documents metric the bench can read across processes), then a refresh and
 * count, as for kes. The poll is kept slow on purpose: at 20 ms the bench's own {@code _stats} calls
 * took CPU from the node the sink wrote to, and only during the official sink's runs.
 *
 * <p>Its JVM gets what {@code bin/kes run} gives kes's (the JIT stopped at C1, 4 MB G1 regions, the
 * same heap), so that the two differ in their code, not in their flags; {@code
 * KES_BENCH_OFFICIAL_JAVA_OPTS} comes last, as {@code KES_JAVA_OPTS} does for kes
 * ({@code -XX:TieredStopAtLevel=4} gives it C2 back).
 */
final class OfficialRuns implements AutoCloseable {

    static final String CONNECTOR = "flink-connector-elasticsearch7 3.0.1-1.17 on Flink 1.17.2";
    /** How often the index's count is read while the sink runs. */
    static final int POLL_MS = 200;

    private static final Pattern INDEX_TOTAL = Pattern.compile("\"index_total\":(\\d+)");

    private final BenchOptions options;
    private final BenchTopic topic;
    private final ClientCpu clientCpu;
    /** Job JVMs started so far: each writes a log of its own. */
    private int started;
    /** When the latest run read its first record. */
    private long firstRead;
    /** When the index first counted a document of the current run: start-up ends there, as kes's does. */
    private long firstIndexed;
    /** The job JVM's -Xmx: 2g in the rounds, 1g in the users-path scenario (as kes's KES_HEAP there). */
    private final String heap;
    /** What the current job JVM said; a new queue per JVM, so that one which ended cannot speak into the next one's. */
    private BlockingQueue<String> said = new LinkedBlockingQueue<>();

    private Process process;
    private PrintWriter commands;

    OfficialRuns(BenchOptions options, BenchTopic topic, ClientCpu clientCpu) {
        this(options, topic, clientCpu, "2g");
    }

    OfficialRuns(BenchOptions options, BenchTopic topic, ClientCpu clientCpu, String heap) {
        this.options = options;
        this.topic = topic;
        this.clientCpu = clientCpu;
        this.heap = heap;
    }

    /**
     * Why the official sink cannot run against this cluster, or empty when it can. Its Elasticsearch
     * 7.10 client speaks the 7.x REST API; Elasticsearch 8 answers it in that dialect when asked for
     * it with the REST compatibility headers ({@code compatible-with=7}, which the job sends), 9 only
     * offers compatibility with 8.
     */
    static Optional<String> whyNot(int esMajor) {
        if (esMajor >= 9) {
            return Optional.of("cannot run on Elasticsearch " + esMajor + ": " + CONNECTOR
                    + " is built on the Elasticsearch 7.10 client, and Elasticsearch 9 offers REST compatibility with 8 only"
                    + " (compatible-with=7 is refused); run the bench with --es-version 8.19.21");
        }
        if (classpath().isEmpty()) {
            return Optional.of(
                    "not built: bench-official/target/classpath.txt is missing (./mvnw -pl bench-official package)");
        }
        return Optional.empty();
    }

    /** {@code bench-official/target}, from the project root (bin/kes) or from a module (the tests). */
    private static Optional<Path> classpath() {
        for (String dir : List.of("bench-official/target", "../bench-official/target")) {
            if (Files.isRegularFile(Path.of(dir, "classpath.txt"))) {
                return Optional.of(Path.of(dir).toAbsolutePath());
            }
        }
        return Optional.empty();
    }

    /** Starts the job's JVM and its MiniCluster (untimed). */
    private void start() throws Exception {
        Path target = classpath().orElseThrow();
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + heap,
                "-XX:-UseCodeCacheFlushing",
                // what bin/kes run gives kes's JVM (bin/kes, run): the same JIT and heap regions for both
                "-XX:TieredStopAtLevel=1",
                "-XX:G1HeapRegionSize=4m"));
        // Flink 1.17 on JDK 17: its serializers and Kryo reach into these JDK packages. Not JvmFlags (pom.xml's
        // kes.jvm.flags) on purpose: those are what kes's Flink 2 needs, and this JVM runs the official sink on Flink
        // 1.17.
        for (String pkg : List.of(
                "java.util",
                "java.lang",
                "java.lang.reflect",
                "java.io",
                "java.net",
                "java.nio",
                "sun.nio.ch",
                "java.text",
                "java.time",
                "java.util.concurrent",
                "java.util.concurrent.atomic",
                "java.util.concurrent.locks",
                "java.lang.invoke",
                "java.math",
                "java.security")) {
            cmd.add("--add-opens=java.base/" + pkg + "=ALL-UNNAMED");
        }
        String extra =
                System.getenv().getOrDefault("KES_BENCH_OFFICIAL_JAVA_OPTS", "").trim();
        if (!extra.isEmpty()) {
            cmd.addAll(List.of(extra.split("\\s+")));
        }
        cmd.addAll(List.of(
                "-Dlog4j2.configurationFile=" + log4jConfig(),
                "-Dkes.bench.official.compatible-with=7", // REST compatibility headers (Elasticsearch 8 runs them; see
                // whyNot)
                "-cp",
                target.resolve("classes") + ":"
                        + Files.readString(target.resolve("classpath.txt")).trim(),
                "io.kes.bench.official.OfficialSinkJob",
                String.valueOf(options.parallelism)));
        Path log = options.work.resolve("official-sink-" + ++started + ".log").toAbsolutePath();
        BlockingQueue<String> said = new LinkedBlockingQueue<>();
        this.said = said;
        process = new ProcessBuilder(cmd).redirectError(log.toFile()).start();
        commands = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader out = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        for (String line; (line = out.readLine()) != null; ) {
                            if (line.startsWith("official: ")) {
                                said.add(line.substring("official: ".length()));
                            }
                        }
                    } catch (IOException ignored) {
                        // the process ended
                    }
                    said.add("failed the official sink's JVM exited (log: " + log + ")");
                },
                "official-sink-stdout");
        reader.setDaemon(true);
        reader.start();
        expect("ready", 120);
    }

    /** A log4j2 configuration that writes to stderr (the job's log file) at WARN: the job's own logging is not what is measured. */
    private Path log4jConfig() throws IOException {
        Path config = options.work.resolve("official-log4j2.properties").toAbsolutePath();
        Files.writeString(
                config,
                String.join(
                        "\n",
                        "rootLogger.level = WARN",
                        "rootLogger.appenderRef.err.ref = err",
                        "appender.err.type = Console",
                        "appender.err.name = err",
                        "appender.err.target = SYSTEM_ERR",
                        "appender.err.layout.type = PatternLayout",
                        "appender.err.layout.pattern = %d %-5p %c{1} - %m%n",
                        ""));
        return config;
    }

    private String expect(String what, long seconds) throws Exception {
        String line = said.poll(seconds, TimeUnit.SECONDS);
        if (line == null) {
            throw new IllegalStateException(
                    "the official sink's JVM did not say '" + what + "' within " + seconds + " s");
        }
        if (!line.startsWith(what)) {
            throw new IllegalStateException("the official sink: expected '" + what + "', got '" + line + "'");
        }
        return line;
    }

    /** One run over the topic's slice into {@code index} (created by the caller), against {@code esUrls}. */
    Run run(EsStats stats, Http es, String index, String mode, int round, List<String> esUrls) throws Exception {
        return run(stats, es, index, mode, round, esUrls, topic.sliceFrom(), 1).get(0);
    }

    /**
     * The official sink's job as kes's is timed by the users-path scenario: a JVM of its own started
     * for the run and ended after it, from process start to the job's end ({@code seconds}, JVM and
     * MiniCluster start-up included), its CPU from start to exit with the broker's and the bench's
     * ({@code clientCpuSeconds}: JIT compilation of a fresh JVM included, as in kes's process);
     * {@code startupSeconds} to the first document indexed, as kes's ({@link KesProcessRuns}).
     * {@code windows} as {@link #run}'s.
     */
    record ColdRun(List<Run> windows, double seconds, double startupSeconds, double clientCpuSeconds) {}

    ColdRun runCold(EsStats stats, Http es, String index, int round, List<String> esUrls, long[] from, int windows)
            throws Exception {
        close();
        long cpuBefore = clientCpu.millis();
        long t0 = System.nanoTime();
        try {
            start();
            List<Run> runs = run(stats, es, index, "official", round, esUrls, from, windows);
            long end = System.nanoTime();
            long cpu = clientCpu.millis() - cpuBefore + EsStats.treeCpuMillis(process.pid());
            return new ColdRun(runs, (end - t0) / 1e9, (firstIndexed - t0) / 1e9, cpu / 1000.0);
        } finally {
            close(); // also after a failure: a job still running would slow the next mode's run
        }
    }

    /** From {@code from} to the topic's end, in {@code windows} windows of equal documents (see KesRuns#run). */
    List<Run> run(
            EsStats stats, Http es, String index, String mode, int round, List<String> esUrls, long[] from, int windows)
            throws Exception {
        if (process == null) {
            start();
        }
        said.clear();
        long docs = topic.docsFrom(from);
        String fromSpec = java.util.stream.IntStream.range(0, from.length)
                .mapToObj(p -> p + ":" + from[p])
                .collect(Collectors.joining(","));
        EsStats.Snapshot before = stats.snapshot();
        commands.println(String.join(
                " ",
                "run",
                topic.bootstrap(),
                topic.name(),
                index,
                String.join(",", esUrls),
                String.valueOf(options.parallelism),
                "10000",
                fromSpec));
        expect("first-read", 120);
        firstRead = System.nanoTime();
        firstIndexed = 0;
        long clientBefore = clientMillis();
        long jitBefore = jitMillis();
        List<long[]> ends = new ArrayList<>(); // documents, nanos, client ms, JIT ms
        List<EsStats.Snapshot> esAt = new ArrayList<>();
        if (windows > 1) {
            ends.add(new long[] {0, firstRead, clientBefore, jitBefore});
            esAt.add(stats.snapshot());
        }
        long lastPrint = firstRead;
        for (long indexed; (indexed = indexTotal(es, index)) < docs; ) {
            if (firstIndexed == 0 && indexed > 0) {
                firstIndexed = System.nanoTime();
            }
            String line = said.peek();
            if (line != null) {
                throw new IllegalStateException("the official sink " + line.replaceFirst("^failed ", "failed: ")
                        + " with " + indexed + " of " + docs + " documents indexed");
            }
            if (windows > 1 && ends.size() < windows && indexed >= docs * ends.size() / windows) {
                ends.add(new long[] {indexed, System.nanoTime(), clientMillis(), jitMillis()});
                esAt.add(stats.snapshot());
                System.out.printf("  window %d/%d ended at %,d documents indexed%n", ends.size() - 1, windows, indexed);
            }
            if (System.nanoTime() - lastPrint > 10e9) {
                lastPrint = System.nanoTime();
                System.out.printf("  indexed %,d%n", indexed);
            }
            Thread.sleep(POLL_MS);
        }
        if (firstIndexed == 0) {
            firstIndexed = System.nanoTime(); // everything was indexed before the first look
        }
        long clientAfter = clientMillis();
        long jitAfter = jitMillis();
        long counted = es.refreshAndCount(index);
        long done = System.nanoTime();
        EsStats.Snapshot after = stats.snapshot();
        EsStats.Snapshot delta = after.minus(before);
        String end = said.poll(300, TimeUnit.SECONDS);
        if (end == null || !end.equals("done")) {
            throw new IllegalStateException("the official sink's job did not finish: " + end);
        }
        double tail = (System.nanoTime() - done) / 1e9;
        checkSameIds(es, index, from);
        long shardOps = stats.shardBulkOperations(index);
        long bulks = delta.bulkHttpRequests();
        double shardsPerBulk = Stats.ratio(shardOps, bulks);
        if (windows == 1) {
            return List.of(new Run(
                    mode,
                    round,
                    docs,
                    counted,
                    (done - firstRead) / 1e9,
                    delta.cpuMillis() / 1000.0,
                    (clientAfter - clientBefore) / 1000.0,
                    (jitAfter - jitBefore) / 1000.0,
                    Double.NaN,
                    Double.NaN,
                    shardsPerBulk,
                    delta.writeRejected(),
                    Double.NaN,
                    Double.NaN,
                    tail,
                    bulks));
        }
        ends.add(new long[] {docs, done, clientAfter, jitAfter});
        esAt.add(after);
        List<Run> runs = new ArrayList<>();
        for (int w = 1; w < ends.size(); w++) {
            long[] a = ends.get(w - 1);
            long[] b = ends.get(w);
            EsStats.Snapshot d = esAt.get(w).minus(esAt.get(w - 1));
            long windowDocs = b[0] - a[0];
            runs.add(new Run(
                    mode,
                    w,
                    windowDocs,
                    w == ends.size() - 1 && counted != docs ? counted - a[0] : windowDocs,
                    (b[1] - a[1]) / 1e9,
                    d.cpuMillis() / 1000.0,
                    (b[2] - a[2]) / 1000.0,
                    (b[3] - a[3]) / 1000.0,
                    Double.NaN,
                    Double.NaN,
                    shardsPerBulk,
                    d.writeRejected(),
                    Double.NaN,
                    Double.NaN,
                    w == ends.size() - 1 ? tail : Double.NaN,
                    d.bulkHttpRequests()));
        }
        return runs;
    }

    /**
     * The fixed-load scenario's job: a JVM of its own, following {@code topicName} from its first
     * offsets until {@code until} (per partition: records the producer has not sent yet) into
     * {@code index}; returns the JVM's pid once the job is submitted. {@link #awaitFollowed} waits
     * for its end.
     */
    long follow(String bootstrap, String topicName, String index, List<String> esUrls, long[] until) throws Exception {
        close();
        start();
        commands.println(String.join(
                " ",
                "run",
                bootstrap,
                topicName,
                index,
                String.join(",", esUrls),
                String.valueOf(options.parallelism),
                "10000",
                offsets(new long[until.length]),
                offsets(until)));
        return process.pid();
    }

    /** Why the followed job failed, or empty while it runs or once it ended well. */
    Optional<String> followFailure() {
        return said.stream().filter(l -> l.startsWith("failed")).findFirst();
    }

    /** Waits for the followed job's end (it reached its end offsets), then ends its JVM. */
    void awaitFollowed(long seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        try {
            for (long left; (left = deadline - System.nanoTime()) > 0; ) {
                String line = said.poll(left, TimeUnit.NANOSECONDS);
                if ("done".equals(line)) {
                    return;
                }
                if (line != null && line.startsWith("failed")) {
                    throw new IllegalStateException("the official sink " + line.replaceFirst("^failed ", "failed: "));
                }
            }
            throw new IllegalStateException("the official sink's job did not end within " + seconds + " s");
        } finally {
            close();
        }
    }

    private static String offsets(long[] perPartition) {
        return java.util.stream.IntStream.range(0, perPartition.length)
                .mapToObj(p -> p + ":" + perPartition[p])
                .collect(Collectors.joining(","));
    }

    /** This JVM (the bench, polling), the Kafka broker, and the job's JVM. */
    private long clientMillis() {
        return clientCpu.millis() + EsStats.treeCpuMillis(process.pid());
    }

    /** The first document of every partition's slice must sit under the id kes gives it: same ids, same work per document. */
    private void checkSameIds(Http es, String index, long[] from) throws IOException {
        for (int p = 0; p < from.length; p++) {
            String id = KafkaCoordinateId.of(topic.name(), p, from[p]);
            Http.Response r = es.get("/" + index + "/_doc/" + id + "?_source=false");
            if (r.status() != 200) {
                throw new IllegalStateException("the official sink's ids are not kes's: no document " + id
                        + " (partition " + p + ", offset " + from[p] + ") in " + index + ": " + r.status());
            }
        }
    }

    /** Index operations on the primaries of {@code index} so far: above the documents when some were written twice. */
    static long indexTotal(Http es, String index) throws IOException {
        Matcher m = INDEX_TOTAL.matcher(es.get("/" + index
                        // 0 until it exists: a data stream appears with kes's first write
                        + "/_stats/indexing?ignore_unavailable=true&filter_path=_all.primaries.indexing.index_total")
                .requireOk("indexing stats of " + index)
                .body());
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    /** CPU of the job JVM's JIT compiler threads, as {@link ClientCpu#jitMillis()} for this JVM. */
    private long jitMillis() {
        long ticks = 0;
        try (var tasks = Files.list(Path.of("/proc/" + process.pid() + "/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    if (Files.readString(task.resolve("comm")).contains("CompilerThre")) {
                        ticks += EsStats.cpuTicks(task);
                    }
                } catch (IOException gone) {
                    // the thread ended
                }
            }
        } catch (IOException gone) {
            return 0;
        }
        return ticks * 1000 / EsStats.CLOCK_TICKS;
    }

    @Override
    public void close() {
        if (process != null) {
            commands.println("exit");
            try {
                if (!process.waitFor(20, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
            process = null;
        }
    }

    @Override
    public String toString() {
        return "the official sink's JVM";
    }
}
