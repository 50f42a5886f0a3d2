package io.kes.bench;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The system under test in one fixed-load run, following the topic: kes through {@code bin/kes run}
 * as its own process, or the official sink's job in {@link OfficialRuns}' JVM. Its process's CPU, a
 * check that it still runs, and how to end it.
 */
interface FixedLoadJob {

    long cpuMillis();

    void check() throws Exception;

    void stop() throws Exception;

    static FixedLoadJob start(
            BenchOptions options,
            OfficialRuns official,
            String mode,
            String index,
            PacedProducer producer,
            List<String> urls,
            long total)
            throws Exception {
        if (mode.equals("official")) {
            long pid = official.follow(
                    producer.bootstrap(),
                    producer.topic(),
                    index,
                    urls,
                    PacedProducer.endOffsets(total, options.partitions));
            return new FixedLoadJob() {
                public long cpuMillis() {
                    return EsStats.treeCpuMillis(pid);
                }

                public void check() {
                    Optional<String> failed = official.followFailure();
                    if (failed.isPresent()) {
                        throw new IllegalStateException("the official sink " + failed.get());
                    }
                }

                public void stop() throws Exception {
                    official.awaitFollowed(120);
                }
            };
        }
        Path dir = options.work.resolve("kes-run-" + index).toAbsolutePath();
        Path config = KesProcessRuns.writeConfig(
                dir,
                urls,
                producer.bootstrap(),
                producer.topic(),
                index,
                options.parallelism,
                false,
                FixedLoadScenario.bulkSettings(mode, options.kesBulk),
                "index: " + index,
                FixedLoadScenario.kafkaProperties(mode));
        Process process = KesProcessRuns.builder(dir, config, "1g").start();
        long[] last = {0};
        return new FixedLoadJob() {
            public long cpuMillis() {
                // the process tree is gone once it exits: its last reading stands
                last[0] = Math.max(last[0], EsStats.treeCpuMillis(process.pid()));
                return last[0];
            }

            public void check() throws Exception {
                if (!process.isAlive()) {
                    throw new IllegalStateException("bin/kes run (" + mode + ") exited with " + process.exitValue()
                            + "; its last lines (all in " + dir + "):\n" + KesProcessRuns.printedTail(dir, 8));
                }
            }

            public void stop() throws Exception {
                // the job follows the topic and never ends on its own: SIGTERM, as a user's Ctrl-C
                process.descendants().forEach(ProcessHandle::destroy);
                process.destroy();
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.descendants().forEach(ProcessHandle::destroyForcibly);
                    process.destroyForcibly();
                }
            }
        };
    }
}
