package io.kes.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;
import one.profiler.AsyncProfiler;

/**
 * A profile of one kes run in this JVM (where the MiniCluster runs the job): async-profiler's CPU
 * samples of every thread, JIT compiler, GC and native frames included (JFR's execution samples see
 * Java frames only), as tables in {@code profile.md} (committed with the results) and as a flame
 * graph ({@code profile-cpu.html}, beside the raw data in the work folder, under {@code target/}:
 * 40-70 KB of generated HTML per run, which the tables summarise, stays out of the repository); a JFR recording of allocation samples, GC and lock contention; and CPU per
 * thread read from {@code /proc/self/task}.
 */
final class Profiler {

    private static final String FLAME_GRAPH = "profile-cpu.html";

    private final AsyncProfiler cpu;
    private final String cpuProblem;
    private final Instant windowStart;
    private final Map<String, ThreadCpu> threadsAtStart;
    /** The latest reading of every thread seen: the job's threads end with the job, before the last look. */
    private final Map<String, ThreadCpu> threadsLastSeen = new HashMap<>();

    private static AsyncProfiler agent;
    private static String agentProblem;
    private static Recording recording;

    private Profiler(AsyncProfiler cpu, String cpuProblem, Map<String, ThreadCpu> threadsAtStart) {
        this.cpu = cpu;
        this.cpuProblem = cpuProblem;
        this.windowStart = Instant.now();
        this.threadsAtStart = threadsAtStart;
    }

    /**
     * Loads the profiler agent and starts the JFR recording (allocation samples, GC, locks: cheap)
     * when the bench starts, long before the profiled run. Started for that run, their own code was
     * JIT-compiled on its clock: two thirds of the bench JVM's CPU in the profiled run went to the
     * compiler threads.
     */
    static synchronized void prepare() {
        if (recording != null) {
            return;
        }
        try {
            agent = AsyncProfiler.getInstance();
        } catch (Exception | LinkageError e) {
            agentProblem = "async-profiler could not load here (" + e + "); no CPU samples";
        }
        recording = new Recording();
        recording.enable("jdk.ObjectAllocationSample").with("throttle", "300/s");
        recording.enable("jdk.GarbageCollection");
        recording.enable("jdk.JavaMonitorEnter").withThreshold(Duration.ofMillis(10));
        recording.start();
    }

    /** Starts CPU sampling; the JFR tables cover what happens from now on. */
    static synchronized Profiler start() {
        prepare();
        String problem = agentProblem;
        if (agent != null) {
            try {
                startCpu(agent);
            } catch (IOException | RuntimeException e) {
                problem = "async-profiler could not start sampling (" + e + "); no CPU samples";
            }
        }
        return new Profiler(problem == null ? agent : null, problem, threadCpu());
    }

    /** CPU time from perf events where the kernel allows them, else from a CPU-time timer. */
    private static void startCpu(AsyncProfiler cpu) throws IOException {
        try {
            cpu.execute("start,event=cpu,interval=10ms,threads");
        } catch (IllegalStateException | IOException perfEventsUnavailable) {
            cpu.execute("start,event=itimer,interval=10ms,threads");
        }
    }

    /** Reads every thread's CPU; call it often (the bench does every second) while the job runs. */
    void sampleThreads() {
        threadsLastSeen.putAll(threadCpu());
    }

    /**
     * Stops, writes {@code profile.md} under {@code results}, the flame graph and the raw data under
     * {@code work}; returns the summary, which starts with {@code preface}.
     */
    String stopAndSummarise(Path results, Path work, String preface) throws IOException {
        sampleThreads();
        Files.createDirectories(results);
        Files.createDirectories(work);
        Path collapsed = work.resolve("kes-profile-cpu.collapsed").toAbsolutePath();
        Path jfrFile = work.resolve("kes-profile.jfr").toAbsolutePath();
        Path flameGraph = work.resolve(FLAME_GRAPH).toAbsolutePath();
        StringBuilder summary = new StringBuilder(preface).append(cpuByThread(threadsAtStart, threadsLastSeen));
        if (cpu != null) {
            cpu.execute("dump,file=" + collapsed + ",collapsed");
            cpu.execute("stop,file=" + flameGraph + ",flamegraph,title=kes job, one bench run");
            summary.append(cpuSummary(Files.readAllLines(collapsed)));
        } else {
            summary.append(cpuProblem).append("\n\n");
        }
        recording.dump(jfrFile);
        summary.append(jfrSummary(jfrFile, windowStart));
        Files.writeString(
                results.resolve("profile.md"),
                "# Profile of one kes run (default mode)\n\n"
                        + "The tables below summarise the run's CPU flame graph, `" + shown(flameGraph)
                        + "` (written by each profiled run, not committed). Raw data: `" + shown(collapsed)
                        + "` (async-profiler, "
                        + "collapsed stacks) and `" + shown(jfrFile) + "` (JFR: allocations, GC, locks).\n\n"
                        + summary);
        return summary.toString();
    }

    /**
     * Prints the tables of a collapsed-stack file of async-profiler at 10 ms (one attached by hand
     * to a running job for a steady-state window): {@code Profiler FILE "what the samples cover"}.
     */
    public static void main(String[] args) throws IOException {
        System.out.print(cpuSummary(java.nio.file.Files.readAllLines(Path.of(args[0])), args[1]));
    }

    /** Tables from async-profiler's collapsed stacks: {@code [thread tid=n];root;...;leaf count} per line. */
    static String cpuSummary(List<String> collapsedLines) {
        return cpuSummary(collapsedLines, "every thread of the bench JVM, from the first record read to the end");
    }

    /** The same, {@code scope} saying which JVM and which part of its life the samples cover. */
    static String cpuSummary(List<String> collapsedLines, String scope) {
        Map<String, Long> byThread = new HashMap<>();
        Map<String, Long> selfFrames = new HashMap<>();
        Map<String, Long> kesFrames = new HashMap<>();
        long total = 0;
        long jobSamples = 0;
        for (String line : collapsedLines) {
            int space = line.lastIndexOf(' ');
            if (space < 0) {
                continue;
            }
            long n = Long.parseLong(line.substring(space + 1));
            String[] frames = line.substring(0, space).split(";");
            String thread = frames[0].replaceAll("^\\[|\\s+tid=\\d+]$", "");
            total += n;
            byThread.merge(threadGroup(thread), n, Long::sum);
            if (isBenchThread(thread) || isJvmThread(thread)) {
                continue;
            }
            jobSamples += n;
            selfFrames.merge(frames[frames.length - 1], n, Long::sum);
            for (int i = frames.length - 1; i > 0; i--) { // from the leaf: the innermost kes frame
                if (frames[i].startsWith("io/kes/")) {
                    kesFrames.merge(frames[i].replace('/', '.'), n, Long::sum);
                    break;
                }
            }
        }
        return String.format("%,d CPU samples (10 ms), %s.%n%n", total, scope)
                + "**Whose code the CPU ran** (each sample to the innermost frame of an owner; JDK and library"
                + " frames count for their caller: `CpuOwners`)\n\n"
                + table(CpuOwners.of(collapsedLines), total, 15, "owner", "samples") + '\n'
                + "**CPU samples by thread group** (JIT compiler and GC threads included)\n\n"
                + table(byThread, total, 15, "thread group", "samples") + '\n'
                + "**Top frames (self time) of the job's threads** (JIT compiler, GC and the bench's own threads left out; `_[k]` is kernel code)\n\n"
                + table(selfFrames, jobSamples, 25, "frame", "samples") + '\n'
                + "**Innermost kes frame on the stack (inclusive of what it calls), job's threads**\n\n"
                + table(kesFrames, jobSamples, 15, "kes frame", "samples") + '\n';
    }

    /** A path as the report shows it: relative to the working directory when below it (no machine's home in the results). */
    private static Path shown(Path file) {
        Path here = Path.of("").toAbsolutePath();
        return file.startsWith(here) ? here.relativize(file) : file;
    }

    /** Allocation, GC and lock tables from the events of {@code jfrFile} from {@code from} on. */
    static String jfrSummary(Path jfrFile, Instant from) throws IOException {
        Map<String, Long> allocByClass = new HashMap<>();
        Map<String, Long> allocByFrame = new HashMap<>();
        Map<String, Long> locks = new HashMap<>();
        long allocTotal = 0;
        long gcPauseMillis = 0;
        long gcs = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(jfrFile)) {
            if (e.getStartTime().isBefore(from)) {
                continue;
            }
            switch (e.getEventType().getName()) {
                case "jdk.ObjectAllocationSample" -> {
                    if (e.getThread("eventThread") != null
                            && isBenchThread(e.getThread("eventThread").getJavaName())) {
                        continue; // the bench's own polling, not the job
                    }
                    long weight = e.getLong("weight");
                    allocTotal += weight;
                    allocByClass.merge(e.getClass("objectClass").getName(), weight, Long::sum);
                    RecordedStackTrace st = e.getStackTrace();
                    if (st != null) {
                        String kes = firstMatching(st.getFrames(), "io.kes.");
                        String top = st.getFrames().isEmpty()
                                ? "?"
                                : frame(st.getFrames().get(0));
                        allocByFrame.merge(kes != null ? kes + " (via " + top + ")" : top, weight, Long::sum);
                    }
                }
                case "jdk.JavaMonitorEnter" ->
                    locks.merge(
                            e.getClass("monitorClass").getName(),
                            e.getDuration().toMillis(),
                            Long::sum);
                case "jdk.GarbageCollection" -> {
                    gcs++;
                    gcPauseMillis += e.getDuration("sumOfPauses").toMillis();
                }
                default -> {}
            }
        }
        return String.format(
                        "GC: %d collections, %,d ms of pauses. Sampled allocation: %,.0f MB.%n%n",
                        gcs, gcPauseMillis, allocTotal / 1e6)
                + "**Allocation by class (sampled weight)**\n\n" + table(allocByClass, allocTotal, 15, "class", "bytes")
                + '\n'
                + "**Allocation by site (innermost kes frame, else top frame)**\n\n"
                + table(allocByFrame, allocTotal, 15, "site", "bytes") + '\n'
                + "**Monitor contention (jdk.JavaMonitorEnter, total ms by lock class)**\n\n"
                + (locks.isEmpty()
                        ? "none recorded above the 10 ms threshold\n"
                        : table(
                                locks,
                                locks.values().stream()
                                        .mapToLong(Long::longValue)
                                        .sum(),
                                10,
                                "lock class",
                                "ms"));
    }

    /** CPU ticks of one thread of this JVM, with its (15-character) kernel name. */
    record ThreadCpu(String name, long ticks) {}

    /** Every thread of this JVM from /proc/self/task: all CPU, native code, JIT compiler and GC threads included. */
    static Map<String, ThreadCpu> threadCpu() {
        Map<String, ThreadCpu> threads = new HashMap<>();
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    String name = Files.readString(task.resolve("comm")).trim();
                    threads.put(task.getFileName().toString(), new ThreadCpu(name, EsStats.cpuTicks(task)));
                } catch (IOException gone) {
                    // the thread ended between listing and reading
                }
            }
        } catch (IOException | RuntimeException noProc) {
            return Map.of();
        }
        return threads;
    }

    /** CPU per thread group between two {@link #threadCpu()} snapshots, as a markdown table. */
    static String cpuByThread(Map<String, ThreadCpu> start, Map<String, ThreadCpu> end) {
        Map<String, Long> byGroup = new HashMap<>();
        long total = 0;
        for (Map.Entry<String, ThreadCpu> e : end.entrySet()) {
            ThreadCpu before = start.get(e.getKey());
            long delta = e.getValue().ticks() - (before == null ? 0 : before.ticks());
            if (delta > 0) {
                byGroup.merge(threadGroup(e.getValue().name()), delta, Long::sum);
                total += delta;
            }
        }
        if (byGroup.isEmpty()) {
            return "";
        }
        return "**CPU by thread of the bench JVM (/proc, clock ticks; names cut at 15 characters by the kernel)**\n\n"
                + table(byGroup, total, 15, "thread group", "ticks") + '\n';
    }

    private static boolean isBenchThread(String name) {
        return name == null || name.equals("main") || name.startsWith("bench-") || name.startsWith("kes-bench");
    }

    private static boolean isJvmThread(String name) {
        return name.contains("CompilerThre")
                || name.startsWith("GC Thread")
                || name.startsWith("G1 ")
                || name.startsWith("VM ")
                || name.equals("Sweeper thread");
    }

    private static String threadGroup(String name) {
        return name.replaceAll("\\(\\d+/\\d+\\)", "(n/m)").replaceAll("[-#]?\\d+", "#");
    }

    private static String firstMatching(List<RecordedFrame> frames, String prefix) {
        for (RecordedFrame f : frames) {
            if (f.getMethod() != null && f.getMethod().getType().getName().startsWith(prefix)) {
                return frame(f);
            }
        }
        return null;
    }

    private static String frame(RecordedFrame f) {
        if (f.getMethod() == null) {
            return "?";
        }
        return f.getMethod().getType().getName() + "." + f.getMethod().getName();
    }

    private static String table(Map<String, Long> counts, long total, int limit, String what, String unit) {
        StringBuilder s = new StringBuilder("| " + what + " | " + unit + " | share |\n|---|---:|---:|\n");
        counts.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(limit)
                .forEach(e -> s.append(String.format(
                        "| `%s` | %,d | %.1f%% |%n",
                        e.getKey().replace("|", "\\|"), e.getValue(), 100.0 * e.getValue() / Math.max(total, 1))));
        return s.toString();
    }
}
