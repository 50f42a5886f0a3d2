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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every compression a Kafka producer can choose, read by the job as users start it: through
 * {@code bin/kes run} and from {@code kes-job.jar}. The codecs are runtime dependencies of
 * kafka-clients, so only a child JVM with the shipped classpath can show one missing.
 */
@ExtendWith({ElasticsearchExtension.class, KafkaExtension.class})
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class CompressionCodecsIT {

    static final List<String> CODECS = List.of("none", "gzip", "snappy", "lz4", "zstd");
    private static final int RECORDS = 300;

    @BeforeAll
    static void produceOneTopicPerCodec() throws Exception {
        KafkaBroker kafka = io.kes.stack.SharedServers.kafka();
        for (String codec : CODECS) {
            List<TestTopics.KeyValue> records = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                records.add(TestTopics.KeyValue.of(
                        "k" + i,
                        "{\"codec\":\"" + codec + "\",\"n\":" + i + ",\"text\":\"a compressible line of text\"}"));
            }
            TestTopics.produceCompressed(kafka, "codec-" + codec, codec, records);
        }
    }

    @Test
    void binKesRunIndexesEveryCodec(ElasticsearchNode es, KafkaBroker kafka, @TempDir Path home) throws Exception {
        Path config = writeConfig(home, es, kafka, "bin");
        try (KesProcess job = KesProcess.binKesRun(
                home,
                "--config",
                config.toString(),
                "--flink-conf",
                KesProcess.localFlinkConf(home).toString())) {
            assertEnds(job);
        }
        assertEveryTopicIndexed(es, "bin");
    }

    @Test
    void theJobJarIndexesEveryCodec(ElasticsearchNode es, KafkaBroker kafka, @TempDir Path home) throws Exception {
        Path config = writeConfig(home, es, kafka, "jar");
        try (KesProcess job = KesProcess.jobJar(
                home,
                "--config",
                config.toString(),
                "--flink-conf",
                KesProcess.localFlinkConf(home).toString())) {
            assertEnds(job);
        }
        assertEveryTopicIndexed(es, "jar");
    }

    /**
     * A class missing from the classpath (here: the lz4 codec, as bin/kes had it) cannot be cured
     * by a restart: the job ends at once, the error on the console in a few lines, instead of
     * restarting forever under checkpoints-config/local.yaml's unbounded restart strategy.
     */
    @Test
    void aMissingCodecEndsTheJobWithItsErrorInsteadOfRestartingForever(
            ElasticsearchNode es, KafkaBroker kafka, @TempDir Path home) throws Exception {
        Path config = home.resolve("mapping.yaml");
        Files.writeString(
                config,
                String.join(
                        "\n",
                        "elasticsearch: {hosts: [" + es.url() + "]}",
                        "kafka: {bootstrap_servers: \"" + kafka.bootstrapServers()
                                + "\", group_id: missing-lz4, starting_offsets: earliest}",
                        "job: {name: missing-lz4, parallelism: 1, checkpoint_interval: 1s, bounded: true}",
                        "routes:",
                        "  - {topics: [codec-lz4], index: missing-lz4}"));
        List<Path> classpath = new ArrayList<>();
        classpath.add(KesProcess.TARGET.resolve("classes"));
        KesProcess.entries(KesProcess.TARGET.resolve("classpath.txt")).stream()
                .filter(jar -> !jar.getFileName().toString().startsWith("lz4-java"))
                .forEach(classpath::add);
        classpath.addAll(KesProcess.entries(KesProcess.TARGET.resolve("provided-classpath.txt")));

        try (KesProcess job = KesProcess.java(
                home,
                classpath,
                "--config",
                config.toString(),
                "--flink-conf",
                KesProcess.localFlinkConf(home).toString())) {
            assertThat(job.awaitExit(Duration.ofSeconds(90)))
                    .as("the job ended; console:\n%s", job.console())
                    .isTrue();
            String console = job.console();
            assertThat(job.exitCode()).as(console).isEqualTo(1);
            assertThat(console)
                    .contains(
                            "[kes] the job failed: a class is missing from the job's classpath",
                            "java.lang.NoClassDefFoundError: net/jpountz/lz4/",
                            "not restarted",
                            "stack trace in " + home.resolve("logs/kes.log"));
            assertThat(console.lines().filter(l -> l.startsWith("\tat ")).count())
                    .as("stack frames on the console:\n%s", console)
                    .isZero();
        }
    }

    private static void assertEnds(KesProcess job) throws InterruptedException {
        assertThat(job.awaitExit(Duration.ofMinutes(2)))
                .as("the bounded job ended; console:\n%s", job.console())
                .isTrue();
        assertThat(job.exitCode()).as("exit code; console:\n%s", job.console()).isZero();
    }

    private static void assertEveryTopicIndexed(ElasticsearchNode es, String prefix) throws Exception {
        for (String codec : CODECS) {
            String index = prefix + "-codec-" + codec;
            assertThat(es.http().get("/" + index + "/_count").status())
                    .as(index + " exists")
                    .isEqualTo(200);
            assertThat(es.http().refreshAndCount(index)).as(index).isEqualTo(RECORDS);
        }
    }

    /** One route per codec topic, each to its own index. */
    static Path writeConfig(Path home, ElasticsearchNode es, KafkaBroker kafka, String prefix) throws Exception {
        StringBuilder yaml = new StringBuilder(String.join(
                "\n",
                "elasticsearch: {hosts: [" + es.url() + "]}",
                "kafka: {bootstrap_servers: \"" + kafka.bootstrapServers() + "\", group_id: " + prefix
                        + "-codecs, starting_offsets: earliest}",
                "job: {name: " + prefix + "-codecs, parallelism: 1, checkpoint_interval: 1s, bounded: true}",
                "routes:",
                ""));
        for (String codec : CODECS) {
            yaml.append("  - {topics: [codec-")
                    .append(codec)
                    .append("], index: ")
                    .append(prefix)
                    .append("-codec-")
                    .append(codec)
                    .append(", id: kafka}\n");
        }
        Path file = home.resolve("mapping.yaml");
        Files.writeString(file, yaml);
        return file;
    }
}
