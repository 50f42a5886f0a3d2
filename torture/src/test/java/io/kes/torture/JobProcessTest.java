package io.kes.torture;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JobProcessTest {

    /**
     * A rescale restarts the job with its config written at the new parallelism, and a job that
     * later dies on its own is revived at that parallelism, not at the one it started with.
     */
    @Test
    void aRescaledJobStartsAndIsRevivedWithItsConfigAtTheNewParallelism(@TempDir Path root) throws Exception {
        Files.createDirectories(root.resolve("jobs/target"));
        Files.writeString(root.resolve("jobs/target/classpath.txt"), "");
        Files.writeString(root.resolve("jobs/target/provided-classpath.txt"), "");
        List<Integer> written = new ArrayList<>();
        JobProcess job = new JobProcess(
                root,
                parallelism -> {
                    written.add(parallelism);
                    return Files.writeString(root.resolve("job.yaml"), "job: {parallelism: " + parallelism + "}");
                },
                JobFiles.PARALLELISM,
                root.resolve("flink.yaml"),
                0,
                root.resolve("checkpoints"),
                root.resolve("job.log"));
        try {
            job.start(false); // no KesJob on this classpath: each JVM exits at once, which is all this needs
            job.restartAt(JobFiles.RESCALED_PARALLELISM);
            job.kill();
            job.start(true);
        } finally {
            job.kill();
        }

        assertThat(written).containsExactly(2, 4, 4);
        assertThat(job.parallelism()).isEqualTo(4);
        assertThat(Files.readString(root.resolve("job.log")))
                .contains("==== start 1 at parallelism 2: --config " + root.resolve("job.yaml"))
                .contains("==== start 2 at parallelism 4: --config " + root.resolve("job.yaml"))
                .contains("==== start 3 at parallelism 4: --config " + root.resolve("job.yaml"));
    }
}
