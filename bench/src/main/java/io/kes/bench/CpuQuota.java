package io.kes.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A CPU quota for a group of processes (a cgroup of the {@code cpu} controller, v1 or v2), so that
 * Elasticsearch nodes on one machine behave like nodes on machines of their own: without quotas,
 * three nodes on two cores share the cores, and while one is paused the others simply get its CPU,
 * which no real cluster does. Needs root and a writable cgroup file system; without them the bench
 * says so and runs without quotas.
 */
final class CpuQuota implements AutoCloseable {

    private static final Path V1 = Path.of("/sys/fs/cgroup/cpu");
    private static final Path V2 = Path.of("/sys/fs/cgroup");
    private static final long PERIOD_MICROS = 100_000;

    private final Path dir;

    private CpuQuota(Path dir) {
        this.dir = dir;
    }

    /** A fresh group limited to {@code cpus} cores (e.g. 0.5), or why there is none. */
    static Optional<CpuQuota> create(String name, double cpus, List<String> whyNot) {
        long quota = Math.round(cpus * PERIOD_MICROS);
        try {
            if (Files.isWritable(V1.resolve("cpu.cfs_quota_us"))) {
                Path dir = V1.resolve(name);
                Files.createDirectories(dir);
                Files.writeString(dir.resolve("cpu.cfs_period_us"), Long.toString(PERIOD_MICROS));
                Files.writeString(dir.resolve("cpu.cfs_quota_us"), Long.toString(quota));
                return Optional.of(new CpuQuota(dir));
            }
            if (Files.isReadable(V2.resolve("cgroup.controllers"))
                    && Files.readString(V2.resolve("cgroup.controllers")).contains("cpu")) {
                Files.writeString(V2.resolve("cgroup.subtree_control"), "+cpu");
                Path dir = V2.resolve(name);
                Files.createDirectories(dir);
                Files.writeString(dir.resolve("cpu.max"), quota + " " + PERIOD_MICROS);
                return Optional.of(new CpuQuota(dir));
            }
            whyNot.add("no writable cgroup cpu controller");
        } catch (IOException | RuntimeException e) {
            whyNot.add(e.toString());
        }
        return Optional.empty();
    }

    /** Moves a process and all its descendants into the group (threads follow their process). */
    void add(ProcessHandle root) throws IOException {
        List<ProcessHandle> tree = new ArrayList<>();
        tree.add(root);
        root.descendants().forEach(tree::add);
        for (ProcessHandle p : tree) {
            Files.writeString(dir.resolve("cgroup.procs"), Long.toString(p.pid()));
        }
    }

    /** Removes the group once its processes are gone (they are stopped first). */
    @Override
    public void close() {
        try {
            Files.deleteIfExists(dir);
        } catch (IOException stillInUse) {
            // a process is still in it; the kernel group is harmless and empty after the next reboot
        }
    }
}
