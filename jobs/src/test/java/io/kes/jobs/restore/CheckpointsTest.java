package io.kes.jobs.restore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kes.jobs.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The per-job checkpoint layout and what --restore-latest picks from it (folders as Flink writes them). */
class CheckpointsTest {

    private static final JobSources A = new JobSources("orders", List.of("orders", "refunds"), null, "kes");

    @Test
    void eachJobNameGetsItsOwnFolderSafeForAnyName() {
        assertThat(Checkpoints.forJob("file:///var/tmp/kes/checkpoints", "orders"))
                .isEqualTo("file:///var/tmp/kes/checkpoints/orders");
        assertThat(Checkpoints.forJob("s3://b/kes/", "my job/v2")).isEqualTo("s3://b/kes/my_job_v2");
        assertThat(Checkpoints.forJob("/c", "..")).isEqualTo("/c/_..");
    }

    @Test
    void restoresTheNewestCheckpointOfThisJobWithTheSameSources(@TempDir Path dir) throws Exception {
        Path chk = checkpoint(dir.resolve("orders/0001/chk-3"), A);
        checkpoint(
                dir.resolve("other/0002/chk-9"),
                new JobSources("other", List.of("x"), null, "kes")); // newer, another job
        assertThat(Checkpoints.restoreLatest(
                        dir.toString(), new JobSources("orders", List.of("refunds", "orders"), null, "kes"), m -> {}))
                .contains(chk);
    }

    @Test
    void aJobWithoutCheckpointsSaysSoAndStartsFresh(@TempDir Path dir) throws Exception {
        checkpoint(dir.resolve("6b65730000/chk-1"), null); // the layout before per-job folders
        List<String> said = new ArrayList<>();
        assertThat(Checkpoints.restoreLatest(dir.toString(), A, said::add)).isEqualTo(Optional.empty());
        assertThat(said)
                .singleElement()
                .asString()
                .startsWith("--restore-latest: job 'orders' has no completed checkpoint under " + dir
                        + "/orders; starting from " + "kafka.starting_offsets. Checkpoints directly under " + dir
                        + ", such as ")
                .contains("6b65730000/chk-1", "pass one with --restore if it is this job's");
    }

    @Test
    void refusesACheckpointOfOtherSourcesNamingBoth(@TempDir Path dir) throws Exception {
        Path chk = checkpoint(dir.resolve("orders/0001/chk-3"), A);
        JobSources otherGroup = new JobSources("orders", List.of("orders", "refunds"), null, "kes-2");
        assertThatThrownBy(() -> Checkpoints.restoreLatest(dir.toString(), otherGroup, m -> {}))
                .isInstanceOf(ConfigException.class)
                .hasMessage("--restore-latest: the newest checkpoint under " + dir + "/orders, " + chk.toUri()
                        + ", was taken by "
                        + "job 'orders' (topics [orders, refunds], group 'kes'), but this config is job 'orders' (topics [orders, "
                        + "refunds], group 'kes-2'): restoring it would resume the Kafka positions of other sources and skip "
                        + "records. Give this config its own job.name, start it without --restore-latest to begin from "
                        + "kafka.starting_offsets, or restore that checkpoint on purpose with --restore "
                        + chk.toUri());
        JobSources pattern = new JobSources("orders", List.of(), "orders|refunds", "kes");
        assertThatThrownBy(() -> Checkpoints.restoreLatest(dir.toString(), pattern, m -> {}))
                .hasMessageContaining("this config is job 'orders' (topic pattern 'orders|refunds', group 'kes')");
    }

    @Test
    void refusesACheckpointThatDoesNotSayWhatItRead(@TempDir Path dir) throws Exception {
        Path chk = checkpoint(dir.resolve("orders/0001/chk-3"), null);
        assertThatThrownBy(() -> Checkpoints.restoreLatest(dir.toString(), A, m -> {}))
                .hasMessageContaining("has no kes-sources.json beside it")
                .hasMessageContaining("--restore " + chk.toUri());
    }

    /**
     * Partitions added since the checkpoint's job was submitted move ids to other partitions:
     * their records' order is then Kafka's no more, and with version: kafka-offset a newer value
     * may lose to an older one's higher offset. Restoring is still right (refusing would leave no
     * way on but losing the positions): the restore says so, naming the topic and both counts.
     */
    @Test
    void aRestoreWarnsWhenATopicsPartitionCountChanged(@TempDir Path dir) throws Exception {
        Path chk = checkpoint(
                dir.resolve("orders/0001/chk-3"),
                new JobSources("orders", List.of("orders", "refunds"), null, "kes", Map.of("orders", 3, "refunds", 1)));
        JobSources now =
                new JobSources("orders", List.of("orders", "refunds"), null, "kes", Map.of("orders", 6, "refunds", 1));
        List<String> said = new ArrayList<>();

        assertThat(Checkpoints.restoreLatest(dir.toString(), now, said::add)).contains(chk);
        assertThat(said)
                .singleElement()
                .asString()
                .contains("topic 'orders' had 3 partition(s)", "has 6 now", "version: kafka-offset")
                .doesNotContain("refunds");

        said.clear();
        assertThat(Checkpoints.restoreLatest(dir.toString(), A, said::add))
                .as("counts not known now (Kafka did not answer): nothing to compare")
                .contains(chk);
        assertThat(said).isEmpty();
    }

    @Test
    void thePartitionCountsTravelInTheSourcesFile(@TempDir Path dir) {
        JobSources sources = new JobSources("orders", List.of("orders"), null, "kes", Map.of("orders", 12));
        sources.writeTo(dir);
        assertThat(JobSources.readFrom(dir)).contains(sources);
    }

    /** A completed checkpoint folder, with {@code sources} written beside it (in its job-id folder) unless null. */
    private static Path checkpoint(Path chk, JobSources sources) throws Exception {
        Files.createDirectories(chk);
        Files.writeString(chk.resolve("_metadata"), "");
        if (sources != null) {
            sources.writeTo(chk.getParent());
        }
        return chk;
    }
}
