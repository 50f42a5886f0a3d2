package io.kes.jobs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.legacy.DiscardingSink;
import org.junit.jupiter.api.Test;

/** bin/kes run's MiniCluster, started while the job is checked and built. */
class EarlyMiniClusterTest {

    private static Configuration flink() {
        Configuration flink = new Configuration();
        flink.set(RestOptions.BIND_PORT, "0");
        return flink;
    }

    /** Runs a small bounded job to its end; its result is there only when it finished. */
    private static JobExecutionResult runSequence(StreamExecutionEnvironment env, int parallelism) throws Exception {
        env.setParallelism(parallelism);
        env.fromSequence(1, 1_000).addSink(new DiscardingSink<>());
        JobClient job = env.executeAsync("early");
        return job.getJobExecutionResult().get(60, TimeUnit.SECONDS);
    }

    @Test
    void theJobRunsOnTheClusterStartedBeforeItAndTheClusterStopsWithIt() throws Exception {
        EarlyMiniCluster early = EarlyMiniCluster.start(flink(), 2);

        assertThat(runSequence(early.environment(), 2).getNetRuntime()).isPositive();

        assertThat(early.taken())
                .as("the job was submitted to the early cluster")
                .isTrue();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (early.running() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(early.running()).as("the cluster closes when its job ends").isFalse();
    }

    @Test
    void aKeyedJobAtTheMostWritersGivenLargerBuffersStartsAndRuns() throws Exception {
        int most = 1;
        while (getsLargerBuffers(most + 1)) {
            most++;
        }
        EarlyMiniCluster early = EarlyMiniCluster.start(flink(), most);
        StreamExecutionEnvironment env = early.environment();
        assertThat(env.getConfiguration().get(TaskManagerOptions.MEMORY_SEGMENT_SIZE))
                .isEqualTo(NetworkBuffers.KEYED_EXCHANGE_SEGMENT);
        env.setParallelism(most);
        // all-to-all between two tasks of `most` subtasks each, as kes's routers and writers are
        env.fromSequence(1, 10_000).keyBy(n -> n % 97).addSink(new DiscardingSink<>());

        JobExecutionResult result =
                env.executeAsync("keyed").getJobExecutionResult().get(60, TimeUnit.SECONDS);

        assertThat(result.getNetRuntime()).isPositive();
        assertThat(early.taken()).isTrue();
    }

    /** Whether bin/kes run's rule gives a job of {@code writers} the larger buffers from Flink's default network memory. */
    private static boolean getsLargerBuffers(int writers) {
        Configuration flink = new Configuration();
        NetworkBuffers.choose(flink, writers);
        return flink.contains(TaskManagerOptions.MEMORY_SEGMENT_SIZE);
    }

    @Test
    void aJobWantingMoreSlotsThanTheEarlyClusterHasRunsOnAClusterOfItsOwn() throws Exception {
        EarlyMiniCluster early = EarlyMiniCluster.start(flink(), 1);

        assertThat(runSequence(early.environment(), 3).getNetRuntime()).isPositive();

        assertThat(early.taken()).isFalse();
        assertThat(early.running()).as("the unused early cluster is closed").isFalse();
    }

    @Test
    void aDiscardedClusterIsClosed() {
        EarlyMiniCluster early = EarlyMiniCluster.start(flink(), 2);

        early.discard();

        assertThat(early.running()).isFalse();
        assertThat(early.taken()).isFalse();
    }
}
