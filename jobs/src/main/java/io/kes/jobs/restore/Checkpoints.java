package io.kes.jobs.restore;

import io.kes.jobs.config.ConfigException;
import io.kes.jobs.config.KesConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Finds retained checkpoints on a local or mounted file system. Flink writes each completed
 * checkpoint as {@code <checkpoint dir>/<job id>/chk-<n>/_metadata}; the {@code _metadata} file is
 * written last, so a folder without it is an incomplete checkpoint and is skipped.
 *
 * <p>{@code bin/kes run} keeps each job's checkpoints apart: it sets Flink's checkpoint directory
 * to {@code <checkpoint dir>/<job.name>} ({@link #forJob}), so a checkpoint is
 * {@code <checkpoint dir>/<job.name>/<job id>/chk-<n>}, with the job's {@link JobSources} beside
 * it in {@code <job id>/}. {@code --restore-latest} restores the newest of this job only, and only
 * when it read the same sources ({@link #restoreLatest}). Without the split, Flink's job ids say
 * nothing of which config ran, and the newest checkpoint of another config would be restored.
 *
 * <p>{@code bin/kes checkpoints latest [--config FILE | --job NAME] [dir]} prints the newest of a
 * job. For s3:// or hdfs:// storage list the folders with that storage's tools and pass the path
 * to {@code flink run -s}.
 */
public final class Checkpoints {

    private Checkpoints() {}

    /** {@code <checkpointDir>/<job name>}, the name made safe as a folder name; any URI scheme. */
    public static String forJob(String checkpointDir, String jobName) {
        String base =
                checkpointDir.endsWith("/") ? checkpointDir.substring(0, checkpointDir.length() - 1) : checkpointDir;
        return base + "/" + folderName(jobName);
    }

    static String folderName(String jobName) {
        String safe = jobName.replaceAll("[^A-Za-z0-9._-]", "_");
        return safe.isEmpty() || safe.chars().allMatch(c -> c == '.') ? "_" + safe : safe;
    }

    /** Whether {@code dir} is on a local or mounted file system (a path or a file: URI), where kes can list it. */
    public static boolean isLocal(String dir) {
        return dir.startsWith("file:") || !dir.contains("://");
    }

    /**
     * The checkpoint {@code --restore-latest} restores: the newest completed one of
     * {@code sources}' job under {@code checkpointDir}. None: says so through {@code say} (the job
     * then starts from {@code kafka.starting_offsets}). Refuses a checkpoint whose sources differ
     * from {@code sources}, or that does not say which sources it has, naming both and the ways out.
     */
    public static Optional<Path> restoreLatest(String checkpointDir, JobSources sources, Consumer<String> say) {
        String jobDir = forJob(checkpointDir, sources.jobName());
        Optional<Path> latest = latest(jobDir);
        if (latest.isEmpty()) {
            String older = latest(checkpointDir)
                    .map(p -> ". Checkpoints directly under " + checkpointDir + ", such as " + p.toUri()
                            + ", were taken before kes kept them per job and are not restored automatically: pass one with --restore "
                            + "if it is this job's")
                    .orElse("");
            say.accept("--restore-latest: job '" + sources.jobName() + "' has no completed checkpoint under " + jobDir
                    + "; starting from kafka.starting_offsets" + older);
            return Optional.empty();
        }
        Path checkpoint = latest.get();
        JobSources taken = JobSources.readFrom(checkpoint.getParent())
                .orElseThrow(() -> new ConfigException("--restore-latest: the newest checkpoint of job '"
                        + sources.jobName() + "', " + checkpoint.toUri() + ", has no "
                        + JobSources.FILE
                        + " beside it, so kes cannot tell which topics and group it holds positions of. "
                        + "Restore it on purpose with --restore " + checkpoint.toUri()
                        + ", or start without --restore-latest to begin from kafka.starting_offsets"));
        if (!taken.sameSourcesAs(sources)) {
            throw new ConfigException(
                    "--restore-latest: the newest checkpoint under " + jobDir + ", " + checkpoint.toUri()
                            + ", was taken by " + taken.describe() + ", but this config is " + sources.describe()
                            + ": restoring it would resume the Kafka positions of other sources and skip records. Give this config "
                            + "its own job.name, start it without --restore-latest to begin from kafka.starting_offsets, or restore "
                            + "that checkpoint on purpose with --restore " + checkpoint.toUri());
        }
        partitionsChanged(taken, sources).forEach(say);
        return latest;
    }

    /**
     * A warning per topic whose partition count differs from when {@code taken}'s job was
     * submitted. Only a warning: the restore itself is right, and refusing it would leave only a
     * start that loses the positions; but an id's records may now be in two partitions, whose
     * order Kafka does not keep.
     */
    static List<String> partitionsChanged(JobSources taken, JobSources now) {
        List<String> warnings = new ArrayList<>();
        taken.partitions().forEach((topic, before) -> {
            Integer count = now.partitions().get(topic);
            if (count != null && !count.equals(before)) {
                warnings.add("--restore-latest: topic '" + topic + "' had " + before + " partition(s) when the"
                        + " checkpoint's job was submitted and has " + count + " now: records of one key may now be in"
                        + " two partitions, which Kafka does not order, so a key's older value can be written after"
                        + " its newer one; with version: kafka-offset the newer value may be refused (409) and lost."
                        + " If the keys matter, re-create the index from the topic's start (delete it, start without"
                        + " --restore-latest, kafka.starting_offsets: earliest)");
            }
        });
        return warnings;
    }

    /** The newest completed checkpoint under {@code checkpointDir} (a path or a file:// URI). */
    public static Optional<Path> latest(String checkpointDir) {
        Path dir = toPath(checkpointDir);
        if (!Files.isDirectory(dir)) {
            return Optional.empty();
        }
        try (Stream<Path> jobs = Files.list(dir)) {
            return jobs.filter(Files::isDirectory)
                    .flatMap(Checkpoints::completedIn)
                    .max(Comparator.comparing(Checkpoints::metadataTime));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list checkpoints under " + dir, e);
        }
    }

    private static Stream<Path> completedIn(Path jobDir) {
        try {
            return Files.list(jobDir)
                    .filter(p -> p.getFileName().toString().startsWith("chk-"))
                    .filter(p -> Files.isRegularFile(p.resolve("_metadata")))
                    .toList()
                    .stream();
        } catch (IOException e) {
            return Stream.empty();
        }
    }

    private static FileTime metadataTime(Path checkpoint) {
        try {
            return Files.getLastModifiedTime(checkpoint.resolve("_metadata"));
        } catch (IOException e) {
            return FileTime.fromMillis(0);
        }
    }

    public static Path toPath(String dir) {
        if (dir.startsWith("file:")) {
            return Path.of(URI.create(dir));
        }
        if (dir.contains("://")) {
            throw new IllegalArgumentException(
                    "only local or mounted checkpoint directories can be searched here, got " + dir
                            + "; list it with your storage's tools and pass the chk-<n> path to --restore (or flink run -s)");
        }
        return Path.of(dir);
    }

    private static final String USAGE = "usage: kes checkpoints latest [--config <mapping.yaml> | --job <job.name>] "
            + "[checkpoint dir, default from checkpoints-config/local.yaml]";

    /** {@code bin/kes checkpoints latest [--config FILE | --job NAME] [dir]}: the job's newest (job name default: kes). */
    public static void main(String[] args) {
        if (args.length < 1 || !"latest".equals(args[0])) {
            System.err.println(USAGE);
            System.exit(2);
        }
        String job = "kes";
        String dir = null;
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--job", "--config" -> {
                    if (i + 1 >= args.length) {
                        System.err.println(args[i] + " needs a value. " + USAGE);
                        System.exit(2);
                    }
                    job = args[i].equals("--job")
                            ? args[++i]
                            : KesConfig.load(Path.of(args[++i])).job.name();
                }
                default -> dir = args[i];
            }
        }
        if (dir == null) {
            dir = FlinkConf.load(FlinkConf.LOCAL_DEFAULT).checkpointDir();
        }
        String jobDir = forJob(dir, job);
        Optional<Path> latest = latest(jobDir);
        if (latest.isEmpty()) {
            System.err.println("no completed checkpoint of job '" + job + "' under " + jobDir);
            System.exit(1);
        }
        System.out.println(latest.get().toUri());
    }
}
