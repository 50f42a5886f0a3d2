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
import java.util.Map;
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
                records.add(TestTopics.KeyValue.of("k" + i, "{\"codec\":\"" + codec + "\",\"n\":" + i + ",\"text\":\"a compressible line of text\"}"));
            }
            TestTopics.produceCompressed(kafka, "codec-" + codec, codec, records);
        }
    }

    @Test
    void binKesRunIndexesEveryCodec(ElasticsearchNode es, KafkaBroker kafka, @TempDir Path home) throws Exception {
        Path config = writeConfig(home, es, kafka, "bin");
        try (KesProcess job = KesProcess.binKesRun(home, "--config", config.toString(), "--flink-conf", flinkConf(home).toString())) {
            assertEnds(job);
        }
        assertEveryTopicIndexed(es, "bin");
    }

    @Test
    void theJobJarIndexesEveryCodec(ElasticsearchNode es, KafkaBroker kafka, @TempDir Path home) throws Exception {
        Path config = writeConfig(home, es, kafka, "jar");
        try (KesProcess job = KesProcess.jobJar(home, "--config", config.toString(), "--flink-conf", flinkConf(home).toString())) {
            assertEnds(job);
        }
        assertEveryTopicIndexed(es, "jar");
    }

    private static void assertEnds(KesProcess job) throws InterruptedException {
        assertThat(job.awaitExit(Duration.ofMinutes(2))).as("the bounded job ended; console:\n%s", job.console()).isTrue();
        assertThat(job.exitCode()).as("exit code; console:\n%s", job.console()).isZero();
    }

    private static void assertEveryTopicIndexed(ElasticsearchNode es, String prefix) throws Exception {
        for (String codec : CODECS) {
            String index = prefix + "-codec-" + codec;
            assertThat(es.http().get("/" + index + "/_count").status()).as(index + " exists").isEqualTo(200);
            assertThat(es.http().refreshAndCount(index)).as(index).isEqualTo(RECORDS);
        }
    }

    /** One route per codec topic, each to its own index. */
    static Path writeConfig(Path home, ElasticsearchNode es, KafkaBroker kafka, String prefix) throws Exception {
        StringBuilder yaml = new StringBuilder(String.join("\n",
                "elasticsearch: {hosts: [" + es.url() + "]}",
                "kafka: {bootstrap_servers: \"" + kafka.bootstrapServers() + "\", group_id: " + prefix + "-codecs, starting_offsets: earliest}",
                "job: {name: " + prefix + "-codecs, parallelism: 1, checkpoint_interval: 1s, bounded: true}",
                "routes:", ""));
        for (String codec : CODECS) {
            yaml.append("  - {topics: [codec-").append(codec).append("], index: ").append(prefix).append("-codec-").append(codec)
                    .append(", id: kafka}\n");
        }
        Path file = home.resolve("mapping.yaml");
        Files.writeString(file, yaml);
        return file;
    }

    /** checkpoints-config/local.yaml as shipped, with its checkpoint and savepoint folders in {@code home}. */
    static Path flinkConf(Path home) throws Exception {
        String local = Files.readString(KesProcess.ROOT.resolve("checkpoints-config/local.yaml"));
        String conf = local
                .replaceAll("(?m)^execution\\.checkpointing\\.dir:.*$", "execution.checkpointing.dir: " + home.resolve("checkpoints").toUri())
                .replaceAll("(?m)^execution\\.checkpointing\\.savepoint-dir:.*$",
                        "execution.checkpointing.savepoint-dir: " + home.resolve("savepoints").toUri());
        assertThat(conf).contains(home.resolve("checkpoints").toUri().toString());
        Path file = home.resolve("flink-conf.yaml");
        Files.writeString(file, conf);
        return file;
    }
}
