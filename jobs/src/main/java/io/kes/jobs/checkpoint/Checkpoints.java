package io.kes.jobs.checkpoint;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Finds retained checkpoints on a local or mounted file system. Flink writes each completed
 * checkpoint as {@code <checkpoint dir>/<job id>/chk-<n>/_metadata}; the {@code _metadata} file is
 * written last, so a folder without it is an incomplete checkpoint and is skipped.
 *
 * <p>{@code bin/kes checkpoints latest [dir]} prints the newest; {@code bin/kes run --restore-latest}
 * restores from it. For s3:// or hdfs:// storage list the folders with that storage's tools and
 * pass the path to {@code flink run -s}.
 */
public final class Checkpoints {

    private Checkpoints() {}

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
                    .toList().stream();
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

    static Path toPath(String dir) {
        if (dir.startsWith("file:")) {
            return Path.of(URI.create(dir));
        }
        if (dir.contains("://")) {
            throw new IllegalArgumentException("only local or mounted checkpoint directories can be searched here, got " + dir
                    + "; list it with your storage's tools and pass the chk-<n> path to --restore (or flink run -s)");
        }
        return Path.of(dir);
    }

    /** {@code bin/kes checkpoints latest [dir]}. */
    public static void main(String[] args) {
        if (args.length < 1 || !"latest".equals(args[0])) {
            System.err.println("usage: kes checkpoints latest [checkpoint dir, default from checkpoints-config/local.yaml]");
            System.exit(2);
        }
        String dir = args.length > 1 ? args[1] : FlinkConf.load(FlinkConf.LOCAL_DEFAULT).checkpointDir();
        Optional<Path> latest = latest(dir);
        if (latest.isEmpty()) {
            System.err.println("no completed checkpoint under " + dir);
            System.exit(1);
        }
        System.out.println(latest.get().toUri());
    }
}
