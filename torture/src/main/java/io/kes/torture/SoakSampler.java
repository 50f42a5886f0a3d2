package io.kes.torture;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.ToLongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a soak ({@code bin/kes torture --soak MINUTES}) records about the job while it runs: every
 * {@code interval}, the job JVM's heap after its collections, threads, open files, its latest
 * checkpoint's duration and size, and the records the job made durable per second (its group's
 * committed offsets). Each row also goes to {@code soak.csv}; {@link #summary} compares the first
 * quarter of the run with the last, since what grows without bound shows there.
 *
 * <p>The job restarts during a soak (a stop with a savepoint, a rescale): each sample reads the
 * process that runs then, and its own GC log.
 */
final class SoakSampler implements AutoCloseable {

    /** How the summary's last line starts when a measure that must stay flat grew: the run then fails. */
    static final String GREW = "soak: a measure grew";

    /** {@code 300M->120M(1004M)}: a collection's heap before, after, and the heap's size. */
    private static final Pattern COLLECTION = Pattern.compile("(\\d+)M->(\\d+)M\\((\\d+)M\\)");

    /** One row: {@code -1} where the value could not be read at that moment (the job restarting). */
    record Sample(
            long second,
            long pid,
            long heapAfterGcMb,
            long threads,
            long openFiles,
            long checkpointMillis,
            long checkpointBytes,
            double durablePerSecond) {

        static final String HEADER =
                "second,pid,heap_after_gc_mb,threads,open_files,checkpoint_ms,checkpoint_bytes,durable_records_per_s";

        String csv() {
            return String.format(
                    "%d,%d,%d,%d,%d,%d,%d,%.0f",
                    second,
                    pid,
                    heapAfterGcMb,
                    threads,
                    openFiles,
                    checkpointMillis,
                    checkpointBytes,
                    durablePerSecond);
        }
    }

    /** How often a soak samples the job's resources. */
    static final long SAMPLE_EVERY_MILLIS = 20_000;

    private final JobProcess job;
    private final KafkaTopics kafka;
    private final String group;
    private final long intervalMillis;
    private final PrintWriter csv;
    private final List<Sample> samples = new ArrayList<>();
    private final Thread thread;
    private final long start = System.nanoTime();
    private long lastCommitted = -1;
    private long lastCommittedAt;
    private volatile boolean closed;

    SoakSampler(JobProcess job, KafkaTopics kafka, String group, long intervalMillis, Path csvFile) throws IOException {
        this.job = job;
        this.kafka = kafka;
        this.group = group;
        this.intervalMillis = intervalMillis;
        this.csv = new PrintWriter(Files.newBufferedWriter(csvFile), true);
        csv.println(Sample.HEADER);
        this.thread = new Thread(this::loop, "kes-torture-soak-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    /** Samples {@code job} every {@link #SAMPLE_EVERY_MILLIS} into {@code dir/soak.csv}, its records by the committed offsets of {@code group}. */
    static SoakSampler start(JobProcess job, String bootstrap, String group, Path dir) throws IOException {
        return new SoakSampler(job, new KafkaTopics(bootstrap), group, SAMPLE_EVERY_MILLIS, dir.resolve("soak.csv"));
    }

    private void loop() {
        while (!closed) {
            try {
                Thread.sleep(intervalMillis);
                Sample s = sample();
                synchronized (samples) {
                    samples.add(s);
                }
                csv.println(s.csv());
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                csv.println("# sample failed: " + e);
            }
        }
    }

    private Sample sample() {
        long second = (System.nanoTime() - start) / 1_000_000_000L;
        long pid = job.pid();
        long[] checkpoint = {-1, -1};
        try {
            Optional<long[]> latest = job.rest().latestCheckpoint();
            if (latest.isPresent()) {
                checkpoint = latest.get();
            }
        } catch (Exception restarting) {
            // no running job at this moment: the row says -1
        }
        long committed = kafka.committed(group);
        long now = System.nanoTime();
        double perSecond = -1;
        if (committed >= 0 && lastCommitted >= 0 && committed >= lastCommitted) {
            perSecond = (committed - lastCommitted) / ((now - lastCommittedAt) / 1e9);
        }
        if (committed >= 0) {
            lastCommitted = committed;
            lastCommittedAt = now;
        }
        return new Sample(
                second,
                pid,
                pid < 0 ? -1 : heapAfterLatestGc(job.gcLog(pid)),
                pid < 0 ? -1 : threads(pid),
                pid < 0 ? -1 : openFiles(pid),
                checkpoint[0],
                checkpoint[1],
                perSecond);
    }

    /**
     * The heap after the latest collection in {@code gcLog}, -1 before the first: what the JVM kept
     * live then. The job allocates little (a soak's JVM collected 5 times in 25 minutes), so the
     * latest collection it is, not a floor over the last several, which would reach back to
     * start-up.
     */
    static long heapAfterLatestGc(Path gcLog) {
        try {
            List<String> lines = Files.readAllLines(gcLog);
            for (int i = lines.size() - 1; i >= 0; i--) {
                Matcher m = COLLECTION.matcher(lines.get(i));
                if (m.find()) {
                    return Long.parseLong(m.group(2));
                }
            }
            return -1;
        } catch (IOException | RuntimeException notThereYet) {
            return -1;
        }
    }

    private static long threads(long pid) {
        try {
            return Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream()
                    .filter(l -> l.startsWith("Threads:"))
                    .mapToLong(
                            l -> Long.parseLong(l.substring("Threads:".length()).trim()))
                    .findFirst()
                    .orElse(-1);
        } catch (IOException | RuntimeException gone) {
            return -1;
        }
    }

    private static long openFiles(long pid) {
        try (var fds = Files.list(Path.of("/proc/" + pid + "/fd"))) {
            return fds.count();
        } catch (IOException | RuntimeException gone) {
            return -1;
        }
    }

    List<Sample> samples() {
        synchronized (samples) {
            return List.copyOf(samples);
        }
    }

    /**
     * One line per measure: its median over the first quarter of the samples and over the last, and
     * its largest; and whether any measure that must stay flat grew by more than half (and by more
     * than a small absolute amount) from the first quarter to the last.
     */
    static List<String> summary(List<Sample> samples) {
        List<String> lines = new ArrayList<>();
        if (samples.size() < 8) {
            lines.add("soak: " + samples.size() + " samples, too few to compare the start with the end");
            return lines;
        }
        int quarter = samples.size() / 4;
        List<Sample> first = samples.subList(0, quarter);
        List<Sample> last = samples.subList(samples.size() - quarter, samples.size());
        boolean grew = false;
        grew |= line(lines, "heap after GC (MB)", first, last, samples, s -> s.heapAfterGcMb, 64, true);
        grew |= line(lines, "threads", first, last, samples, s -> s.threads, 20, true);
        grew |= line(lines, "open files", first, last, samples, s -> s.openFiles, 50, true);
        grew |= line(lines, "checkpoint duration (ms)", first, last, samples, s -> s.checkpointMillis, 2000, true);
        grew |= line(lines, "checkpoint size (bytes)", first, last, samples, s -> s.checkpointBytes, 100_000, true);
        line(lines, "durable records/s", first, last, samples, s -> (long) s.durablePerSecond, 0, false);
        lines.add(
                grew
                        ? GREW + " from the first quarter to the last (see above and soak.csv)"
                        : "soak: nothing grew from the first quarter to the last");
        return lines;
    }

    private static boolean line(
            List<String> lines,
            String name,
            List<Sample> first,
            List<Sample> last,
            List<Sample> all,
            ToLongFunction<Sample> measure,
            long slack,
            boolean mustStayFlat) {
        long a = median(first, measure);
        long b = median(last, measure);
        long max = all.stream().mapToLong(measure).max().orElse(-1);
        boolean grew = mustStayFlat && a >= 0 && b > a * 3 / 2 + slack;
        lines.add(String.format(
                "soak: %-26s first quarter %,d, last quarter %,d, largest %,d%s",
                name, a, b, max, grew ? "  <-- GREW" : ""));
        return grew;
    }

    /** The median of the values that could be read (>= 0); -1 when none could. */
    private static long median(List<Sample> samples, ToLongFunction<Sample> measure) {
        long[] values =
                samples.stream().mapToLong(measure).filter(v -> v >= 0).sorted().toArray();
        return values.length == 0 ? -1 : values[values.length / 2];
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        csv.close();
    }
}
