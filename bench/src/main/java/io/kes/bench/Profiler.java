package io.kes.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * A JFR recording of this JVM (where the MiniCluster runs the kes job) during one kes run, summarised
 * as top frames of CPU samples, allocation by class and by allocating frame, lock contention and GC.
 */
final class Profiler {

    private final Recording recording;
    private final Map<String, ThreadCpu> threadsAtStart;
    /** The latest reading of every thread seen: the job's threads end with the job, before the last look. */
    private final Map<String, ThreadCpu> threadsLastSeen = new HashMap<>();

    private Profiler(Recording recording, Map<String, ThreadCpu> threadsAtStart) {
        this.recording = recording;
        this.threadsAtStart = threadsAtStart;
    }

    /** Reads every thread's CPU; call it often (the bench does every 100 ms) while the job runs. */
    void sampleThreads() {
        threadsLastSeen.putAll(threadCpu());
    }

    static Profiler start() throws IOException, ParseException {
        Recording r = new Recording(Configuration.getConfiguration("profile"));
        r.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
        r.start();
        return new Profiler(r, threadCpu());
    }

    String stopAndSummarise(Path summaryFile, Path jfrFile) throws IOException {
        sampleThreads();
        recording.stop();
        Files.createDirectories(jfrFile.toAbsolutePath().getParent());
        recording.dump(jfrFile);
        recording.close();
        String summary = cpuByThread(threadsAtStart, threadsLastSeen) + summarise(jfrFile);
        Files.createDirectories(summaryFile.toAbsolutePath().getParent());
        Files.writeString(summaryFile, "# JFR profile of one kes run (default mode)\n\nRecording: `" + jfrFile
                + "` (inspect with `jfr print --events jdk.ExecutionSample " + jfrFile + "`)\n\n" + summary);
        return summary;
    }

    static String summarise(Path jfrFile) throws IOException {
        Map<String, Long> selfFrames = new HashMap<>();
        Map<String, Long> kesFrames = new HashMap<>();
        Map<String, Long> threads = new HashMap<>();
        Map<String, Long> allocByClass = new HashMap<>();
        Map<String, Long> allocByFrame = new HashMap<>();
        Map<String, Long> locks = new HashMap<>();
        long samples = 0;
        long allocTotal = 0;
        long gcPauseMillis = 0;
        long gcs = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(jfrFile)) {
            String type = e.getEventType().getName();
            if (type.equals("jdk.ObjectAllocationSample") && e.getThread("eventThread") != null
                    && isBenchThread(e.getThread("eventThread").getJavaName())) {
                continue; // the bench's own polling, not the job
            }
            if (type.equals("jdk.ExecutionSample") && e.getThread("sampledThread") != null
                    && isBenchThread(e.getThread("sampledThread").getJavaName())) {
                continue;
            }
            switch (type) {
                case "jdk.ExecutionSample" -> {
                    samples++;
                    RecordedStackTrace st = e.getStackTrace();
                    String thread = e.getThread("sampledThread") == null ? "?" : e.getThread("sampledThread").getJavaName();
                    threads.merge(threadGroup(thread), 1L, Long::sum);
                    if (st != null && !st.getFrames().isEmpty()) {
                        selfFrames.merge(frame(st.getFrames().get(0)), 1L, Long::sum);
                        String kes = firstMatching(st.getFrames(), "io.kes.");
                        if (kes != null) {
                            kesFrames.merge(kes, 1L, Long::sum);
                        }
                    }
                }
                case "jdk.ObjectAllocationSample" -> {
                    long weight = e.getLong("weight");
                    allocTotal += weight;
                    allocByClass.merge(e.getClass("objectClass").getName(), weight, Long::sum);
                    RecordedStackTrace st = e.getStackTrace();
                    if (st != null) {
                        String kes = firstMatching(st.getFrames(), "io.kes.");
                        String top = st.getFrames().isEmpty() ? "?" : frame(st.getFrames().get(0));
                        allocByFrame.merge(kes != null ? kes + " (via " + top + ")" : top, weight, Long::sum);
                    }
                }
                case "jdk.JavaMonitorEnter" -> locks.merge(e.getClass("monitorClass").getName(), e.getDuration().toMillis(), Long::sum);
                case "jdk.ThreadPark" -> {
                    // parking is mostly idle waiting; not a lock signal here
                }
                case "jdk.GarbageCollection" -> {
                    gcs++;
                    gcPauseMillis += e.getDuration("sumOfPauses").toMillis();
                }
                default -> { }
            }
        }
        StringBuilder s = new StringBuilder();
        s.append(String.format("%,d CPU samples (10 ms period, the job's threads in the bench JVM, from the first record read to the end). GC: %d collections, %,d ms of pauses. "
                + "Sampled allocation: %,.0f MB.%n%n", samples, gcs, gcPauseMillis, allocTotal / 1e6));
        s.append("**CPU samples by thread group**\n\n").append(table(threads, samples, 12, "thread group", "samples")).append('\n');
        s.append("**Top frames (self time)**\n\n").append(table(selfFrames, samples, 25, "frame", "samples")).append('\n');
        s.append("**Innermost kes frame on the stack (inclusive of what it calls)**\n\n").append(table(kesFrames, samples, 15, "kes frame", "samples")).append('\n');
        s.append("**Allocation by class (sampled weight)**\n\n").append(table(allocByClass, allocTotal, 15, "class", "bytes")).append('\n');
        s.append("**Allocation by site (innermost kes frame, else top frame)**\n\n").append(table(allocByFrame, allocTotal, 15, "site", "bytes")).append('\n');
        s.append("**Monitor contention (jdk.JavaMonitorEnter, total ms by lock class)**\n\n")
                .append(locks.isEmpty() ? "none recorded above the 10 ms threshold\n" : table(locks, locks.values().stream().mapToLong(Long::longValue).sum(), 10, "lock class", "ms"));
        return s.toString();
    }

    /** CPU ticks of one thread of this JVM, with its (15-character) kernel name. */
    record ThreadCpu(String name, long ticks) {}

    /**
     * Every thread of this JVM from /proc/self/task: unlike JFR's execution samples (Java frames
     * only), this counts all CPU, native code, JIT compiler and GC threads included.
     */
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
        return "**CPU by thread of the bench JVM (/proc, clock ticks; JIT compiler, GC and native code included; names cut at 15 characters by the kernel)**\n\n"
                + table(byGroup, total, 15, "thread group", "ticks") + '\n';
    }

    private static boolean isBenchThread(String name) {
        return name == null || name.equals("main") || name.startsWith("bench-") || name.startsWith("kes-bench");
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
        counts.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(limit)
                .forEach(e -> s.append(String.format("| `%s` | %,d | %.1f%% |%n", e.getKey().replace("|", "\\|"), e.getValue(),
                        100.0 * e.getValue() / Math.max(total, 1))));
        return s.toString();
    }
}
