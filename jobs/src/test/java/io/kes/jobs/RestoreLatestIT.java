package io.kes.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.stack.ElasticsearchNode;
import io.kes.stack.KafkaBroker;
import io.kes.stack.junit.ElasticsearchExtension;
import io.kes.stack.junit.KafkaExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/kes run --restore-latest} as a user runs it with two configs sharing one checkpoint
 * folder (checkpoints-config/local.yaml's): each config restores only its own job's checkpoint.
 */
@ExtendWith({ElasticsearchExtension.class, KafkaExtension.class})
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class RestoreLatestIT {

    private static final int RECORDS = 200;

    @Test
    void eachJobRestoresOnlyItsOwnCheckpoint(ElasticsearchNode es, KafkaBroker kafka, @TempDir Path home)
            throws Exception {
        produce(kafka, "restore-a");
        produce(kafka, "restore-b");
        Path flinkConf = KesProcess.localFlinkConf(home);
        Path configA = config(home, es, kafka, "job-a", "restore-a");

        // Job A runs until a checkpoint holds its positions, then dies.
        try (KesProcess a =
                KesProcess.binKesRun(home, "--config", configA.toString(), "--flink-conf", flinkConf.toString())) {
            awaitCount(es, "restore-a", RECORDS, a);
            awaitCheckpoint(home.resolve("checkpoints"), a);
            a.kill();
        }

        // Job B has none of its own: it says so and reads its topic from kafka.starting_offsets.
        Path configB = config(home, es, kafka, "job-b", "restore-b", true);
        try (KesProcess b = KesProcess.binKesRun(
                home, "--config", configB.toString(), "--flink-conf", flinkConf.toString(), "--restore-latest")) {
            assertThat(b.awaitExit(Duration.ofMinutes(2)))
                    .as("job b ended; console:\n%s", b.console())
                    .isTrue();
            assertThat(b.exitCode()).as(b.console()).isZero();
            assertThat(b.console())
                    .contains("job 'job-b' has no completed checkpoint", "starting from kafka.starting_offsets")
                    .doesNotContain("restoring from");
            // the progress line reads the JobManager's checkpoint gauges, not the web UI
            assertThat(b.console())
                    .as("the last progress line names the bounded job's final checkpoint")
                    .containsPattern("\\| checkpoint [1-9][0-9]* \\([0-9,]+ ms[^)]*\\) \\| finished");
        }
        assertThat(es.http().refreshAndCount("restore-b")).isEqualTo(RECORDS);

        // A config under job A's name but with other sources: refused, naming both.
        Path otherSources = config(home, es, kafka, "job-a", "restore-b");
        try (KesProcess refused = KesProcess.binKesRun(
                home, "--config", otherSources.toString(), "--flink-conf", flinkConf.toString(), "--restore-latest")) {
            assertThat(refused.awaitExit(Duration.ofMinutes(1)))
                    .as("refused; console:\n%s", refused.console())
                    .isTrue();
            assertThat(refused.exitCode()).as("a config error").isEqualTo(2);
            assertThat(refused.console())
                    .contains(
                            "was taken by job 'job-a' (topics [restore-a], group 'job-a')",
                            "this config is job 'job-a' (topics [restore-b], group 'job-a')");
        }

        // Job A again: its own checkpoint, at its topic's end. It reads no record, so its lag comes from
        // the offsets it restored (issue 38: it showed the whole topic as lag, a job that looked stuck).
        try (KesProcess again = KesProcess.binKesRun(
                home, "--config", configA.toString(), "--flink-conf", flinkConf.toString(), "--restore-latest")) {
            again.awaitConsole(
                    "[kes] restoring from " + home.resolve("checkpoints").toUri() + "job-a/", Duration.ofMinutes(1));
            again.awaitConsole("| lag 0 |", Duration.ofMinutes(1));
            assertThat(again.console()).doesNotContain("| lag " + String.format("%,d", RECORDS) + " |");
        }
    }

    /**
     * An upgrade from the chained topology to the keyed one (the default since bulk.topology) and
     * back, each through {@code --restore-latest} of the other's checkpoint: the Kafka positions
     * restore (no record is read twice, none is skipped) whatever the writers' topology.
     */
    @Test
    void aCheckpointOfEitherTopologyRestoresIntoTheOther(ElasticsearchNode es, KafkaBroker kafka, @TempDir Path home)
            throws Exception {
        String topic = "restore-topology";
        Path flinkConf = KesProcess.localFlinkConf(home);
        String[] topologies = {"chained", "keyed", "chained"};
        for (int round = 0; round < topologies.length; round++) {
            produce(kafka, topic, round * RECORDS);
            Path config = config(
                    home,
                    es,
                    kafka,
                    "job-topology",
                    topic,
                    false,
                    "bulk: {topology: " + topologies[round] + "}",
                    "parallelism: 2");
            List<String> args =
                    new ArrayList<>(List.of("--config", config.toString(), "--flink-conf", flinkConf.toString()));
            if (round > 0) {
                args.add("--restore-latest");
            }
            try (KesProcess job = KesProcess.binKesRun(home, args.toArray(String[]::new))) {
                if (round > 0) {
                    job.awaitConsole(
                            "[kes] restoring from "
                                    + home.resolve("checkpoints").toUri() + "job-topology/",
                            Duration.ofMinutes(1));
                }
                awaitCount(es, topic, (round + 1L) * RECORDS, job);
                awaitNewCheckpoint(home.resolve("checkpoints"), job);
                job.kill();
            }
        }
        long indexed = io.kes.stack.Http.longField(
                es.http()
                        .get("/" + topic + "/_stats/indexing?filter_path=_all.primaries.indexing.index_total")
                        .requireOk("indexing stats")
                        .body(),
                "index_total");
        assertThat(indexed)
                .as("index operations: a lost position would read the topic from the start again")
                .isEqualTo(topologies.length * (long) RECORDS);
    }

    private static void produce(KafkaBroker kafka, String topic) throws Exception {
        produce(kafka, topic, 0);
    }

    /** {@value #RECORDS} records {@code {"n": first + i}} to partition 0 (the topic is created the first time). */
    private static void produce(KafkaBroker kafka, String topic, int first) throws Exception {
        List<TestTopics.KeyValue> records = new ArrayList<>();
        for (int i = first; i < first + RECORDS; i++) {
            records.add(TestTopics.KeyValue.of("k" + i, "{\"n\":" + i + "}"));
        }
        TestTopics.produce(kafka, topic, java.util.Map.of(), records);
    }

    /** An unbounded job (as users run it; a finished job's checkpoints are deleted): the test kills it. */
    private static Path config(Path home, ElasticsearchNode es, KafkaBroker kafka, String job, String topic)
            throws Exception {
        return config(home, es, kafka, job, topic, false);
    }

    private static Path config(
            Path home, ElasticsearchNode es, KafkaBroker kafka, String job, String topic, boolean bounded)
            throws Exception {
        return config(home, es, kafka, job, topic, bounded, "", "parallelism: 1");
    }

    /** @param extraSection a YAML line of its own (or empty); {@code parallelism} the job's */
    private static Path config(
            Path home,
            ElasticsearchNode es,
            KafkaBroker kafka,
            String job,
            String topic,
            boolean bounded,
            String extraSection,
            String parallelism)
            throws Exception {
        Path file = home.resolve(job + "-" + topic + ".yaml");
        Files.writeString(
                file,
                String.join(
                        "\n",
                        "elasticsearch: {hosts: [" + es.url() + "]}",
                        "kafka: {bootstrap_servers: \"" + kafka.bootstrapServers() + "\", group_id: " + job
                                + ", starting_offsets: earliest}",
                        "job: {name: " + job + ", " + parallelism + ", checkpoint_interval: 1s, bounded: " + bounded
                                + "}",
                        extraSection,
                        "routes:",
                        "  - {topics: [" + topic + "], index: " + topic + ", id: kafka}"));
        return file;
    }

    private static void awaitCount(ElasticsearchNode es, String index, long expected, KesProcess job) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (true) {
            var r = es.http().get("/" + index + "/_count");
            if (r.status() == 200 && es.http().refreshAndCount(index) == expected) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(index + " never held " + expected + " documents; console:\n" + job.console());
            }
            Thread.sleep(250);
        }
    }

    /** Waits for a checkpoint completed after this call ({@code chk-<n>/_metadata} not there before). */
    private static void awaitNewCheckpoint(Path dir, KesProcess job) throws Exception {
        java.util.Set<Path> before = completedCheckpoints(dir);
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (System.nanoTime() < deadline) {
            if (!before.containsAll(completedCheckpoints(dir))) {
                return;
            }
            Thread.sleep(250);
        }
        throw new AssertionError("no new completed checkpoint under " + dir + "; console:\n" + job.console());
    }

    private static java.util.Set<Path> completedCheckpoints(Path dir) throws Exception {
        if (!Files.isDirectory(dir)) {
            return java.util.Set.of();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.getFileName().toString().equals("_metadata"))
                    .collect(java.util.stream.Collectors.toSet());
        }
    }

    /** Waits for a completed checkpoint ({@code chk-<n>/_metadata}) at any depth under {@code dir}. */
    private static void awaitCheckpoint(Path dir, KesProcess job) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.isDirectory(dir)) {
                try (Stream<Path> files = Files.walk(dir)) {
                    if (files.anyMatch(p -> p.getFileName().toString().equals("_metadata"))) {
                        return;
                    }
                }
            }
            Thread.sleep(250);
        }
        throw new AssertionError("no completed checkpoint under " + dir + "; console:\n" + job.console());
    }
}
