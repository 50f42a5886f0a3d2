package io.kes.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.stack.ElasticsearchNode;
import io.kes.stack.KafkaBroker;
import io.kes.stack.junit.ElasticsearchExtension;
import io.kes.stack.junit.KafkaExtension;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first hour with kes, through {@code bin/kes} as a new user meets it: mistakes are reported
 * all at once, in a few lines without stack traces, naming the setting to fix and fast; a healthy
 * run shows where its web UI is and how far it got.
 */
@ExtendWith({ElasticsearchExtension.class, KafkaExtension.class})
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class FirstHourIT {

    private static final int RECORDS = 300;

    @Test
    void aConfigWithThreeTyposReportsAllThreeInOneRunWithoutAStackTrace(
            ElasticsearchNode es, KafkaBroker kafka, @TempDir Path home) throws Exception {
        Path config = write(
                home,
                "typos.yaml",
                "elasticsearch: {hosts: [" + es.url() + "]}",
                "kafka: {bootstrap_servers: \"" + kafka.bootstrapServers() + "\"}",
                "bulk: {max_doc: 500}",
                "routes:",
                "  - topics: [first-hour-typos]",
                "    indx: first-hour-typos",
                "    id: kafak");
        try (KesProcess check = KesProcess.binKes(home, "check", "--config", config.toString())) {
            assertThat(check.awaitExit(Duration.ofSeconds(60)))
                    .as(check.console())
                    .isTrue();
            assertThat(check.exitCode()).as(check.console()).isEqualTo(2);
            assertThat(check.console())
                    .contains(
                            "kes: the config has 3 errors:",
                            "unknown key 'bulk.max_doc'. Did you mean 'max_docs'?",
                            "unknown key 'routes[0].indx'. Did you mean 'index'?",
                            "routes[0].id must be one of kafka, kafka-connect, key, none, {field: path}, {hash: [paths]} or {key_field: name}, got 'kafak'. Did you mean 'kafka'?")
                    .doesNotContain("Exception", "\tat ");
        }
    }

    @Test
    void aMissingIngestPipelineFailsTheCheckNamingTheRouteSetting(
            ElasticsearchNode es, KafkaBroker kafka, @TempDir Path home) throws Exception {
        TestTopics.produce(kafka, "first-hour-piped", Map.of(), List.of(TestTopics.KeyValue.of("k", "{}")));
        Path config = write(
                home,
                "missing-pipeline.yaml",
                "elasticsearch: {hosts: [" + es.url() + "]}",
                "kafka: {bootstrap_servers: \"" + kafka.bootstrapServers() + "\"}",
                "routes: [{topics: [first-hour-piped], index: first-hour-piped, pipeline: first-hour-enrich}]");
        try (KesProcess check = KesProcess.binKes(home, "check", "--config", config.toString())) {
            assertThat(check.awaitExit(Duration.ofSeconds(60)))
                    .as(check.console())
                    .isTrue();
            assertThat(check.exitCode()).as(check.console()).isEqualTo(3);
            assertThat(check.console())
                    .contains(
                            "routes[0] pipeline",
                            "ingest pipeline 'first-hour-enrich' does not exist",
                            "fix routes[0].pipeline")
                    .doesNotContain("\tat ");
        }
    }

    @Test
    void aWrongElasticsearchHostFailsWithin30SecondsNamingTheSetting(KafkaBroker kafka, @TempDir Path home)
            throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        TestTopics.produce(kafka, "first-hour-wrong-host", Map.of(), List.of(TestTopics.KeyValue.of("k", "{}")));
        Path config = write(
                home,
                "wrong-host.yaml",
                "elasticsearch: {hosts: [\"http://localhost:" + closedPort + "\"]}",
                "kafka: {bootstrap_servers: \"" + kafka.bootstrapServers() + "\"}",
                "routes: [{topics: [first-hour-wrong-host], index: first-hour-wrong-host}]");
        long started = System.nanoTime();
        try (KesProcess run = KesProcess.binKesRun(
                home,
                "--config",
                config.toString(),
                "--flink-conf",
                KesProcess.localFlinkConf(home).toString())) {
            assertThat(run.awaitExit(Duration.ofSeconds(30)))
                    .as("ended within 30 s; console:\n%s", run.console())
                    .isTrue();
            assertThat(run.exitCode()).as(run.console()).isEqualTo(3);
            assertThat(run.console())
                    .contains(
                            "kes: the check found a problem",
                            "elasticsearch http://localhost:" + closedPort,
                            "cannot connect",
                            "check elasticsearch.hosts[0]")
                    .doesNotContain("\tat ");
        }
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(30));
    }

    @Test
    void aMissingTopicFailsWithin30SecondsNamingTheSetting(ElasticsearchNode es, KafkaBroker kafka, @TempDir Path home)
            throws Exception {
        TestTopics.produce(kafka, "first-hour-present", Map.of(), List.of(TestTopics.KeyValue.of("k", "{}")));
        Path config = write(
                home,
                "missing-topic.yaml",
                "elasticsearch: {hosts: [" + es.url() + "]}",
                "kafka: {bootstrap_servers: \"" + kafka.bootstrapServers() + "\"}",
                "routes: [{topics: [first-hour-presnt], index: first-hour-missing}]");
        try (KesProcess run = KesProcess.binKesRun(
                home,
                "--config",
                config.toString(),
                "--flink-conf",
                KesProcess.localFlinkConf(home).toString())) {
            assertThat(run.awaitExit(Duration.ofSeconds(30)))
                    .as("ended within 30 s; console:\n%s", run.console())
                    .isTrue();
            assertThat(run.exitCode()).as(run.console()).isEqualTo(3);
            assertThat(run.console())
                    .contains(
                            "topic 'first-hour-presnt' does not exist",
                            "Did you mean 'first-hour-present'?",
                            "Fix routes[0].topics")
                    .doesNotContain("\tat ");
        }
    }

    @Test
    void aHealthyRunShowsTheWebUiAndProgressUntilEveryRecordIsIndexed(
            ElasticsearchNode es, KafkaBroker kafka, @TempDir Path home) throws Exception {
        List<TestTopics.KeyValue> records = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            records.add(TestTopics.KeyValue.of("k" + i, "{\"n\":" + i + "}"));
        }
        TestTopics.produce(kafka, "first-hour-healthy", Map.of(), records);
        Path config = write(
                home,
                "healthy.yaml",
                "elasticsearch: {hosts: [" + es.url() + "]}",
                "kafka: {bootstrap_servers: \"" + kafka.bootstrapServers()
                        + "\", group_id: first-hour, starting_offsets: earliest}",
                "job: {name: first-hour, parallelism: 1, checkpoint_interval: 1s, bounded: true}",
                "routes: [{topics: [first-hour-healthy], index: first-hour-healthy}]");

        try (KesProcess check = KesProcess.binKes(home, "check", "--config", config.toString())) {
            assertThat(check.awaitExit(Duration.ofSeconds(60)))
                    .as(check.console())
                    .isTrue();
            assertThat(check.exitCode()).as(check.console()).isZero();
            assertThat(check.console())
                    .contains(
                            "elasticsearch " + es.url(),
                            "ok",
                            "kafka " + kafka.bootstrapServers(),
                            "routes[0] topics",
                            "first-hour-healthy (2 partitions)",
                            "routes[0] consumer group",
                            "routes[0] target",
                            "kes: all checks passed");
        }

        try (KesProcess run = KesProcess.binKesRun(
                home,
                "--config",
                config.toString(),
                "--flink-conf",
                KesProcess.localFlinkConf(home).toString())) {
            assertThat(run.awaitExit(Duration.ofMinutes(2)))
                    .as("the bounded job ended; console:\n%s", run.console())
                    .isTrue();
            String console = run.console();
            assertThat(run.exitCode()).as(console).isZero();
            assertThat(console)
                    .containsPattern("\\[kes\\] job first-hour started, id [0-9a-f]{32}")
                    .containsPattern("Flink web UI: http://localhost:\\d+/")
                    .contains("starts at kafka.starting_offsets earliest", "log: " + home.resolve("logs/kes.log"))
                    .doesNotContain("exceeded the 80 characters", "\tat ");
            Matcher indexed = Pattern.compile("indexed ([\\d,]+) \\|").matcher(console);
            long last = -1;
            while (indexed.find()) {
                last = Long.parseLong(indexed.group(1).replace(",", ""));
            }
            assertThat(last)
                    .as("the last progress line's indexed count; console:\n%s", console)
                    .isEqualTo(RECORDS);
        }
        assertThat(es.http().refreshAndCount("first-hour-healthy")).isEqualTo(RECORDS);
    }

    private static Path write(Path home, String name, String... lines) throws Exception {
        Path file = home.resolve(name);
        Files.writeString(file, String.join("\n", lines) + "\n");
        return file;
    }
}
