package io.kes.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.stack.ElasticsearchNode;
import io.kes.stack.Http;
import io.kes.stack.KafkaBroker;
import io.kes.stack.junit.ElasticsearchExtension;
import io.kes.stack.junit.KafkaExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scale the design is for, under a small heap: 96 shards, 8 writers, 8 partitions, through
 * {@code bin/kes run} as a user runs it, with the default options. A writer's documents take at
 * most max_buffered_bytes + max_queued_bytes + (nodes + 1) x max_in_flight bulks of at most
 * about twice max_bytes + 4 answered bodies' arrays: 20 + 10 + 2 x 4 x 2 + 4 = 50 MB, 8 writers
 * 400 MB ({@code SinkSettings.writerHeapBound}); the heap is that plus what Flink and the Kafka
 * consumers need, with room to spare. The job must end with no OutOfMemoryError and no replay: every record
 * indexed exactly once (a restart after an OOM would index the records since the last checkpoint
 * again).
 */
@ExtendWith({ElasticsearchExtension.class, KafkaExtension.class})
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class ManyShardsMemoryIT {

    private static final int SHARDS = 96;
    private static final int RECORDS = Integer.getInteger("kes.memory.records", 200_000);
    private static final String HEAP = System.getProperty("kes.memory.heap", "768m");

    @Test
    void ninetySixShardsAtParallelismEightFitASmallHeapWithNoReplay(
            ElasticsearchNode es, KafkaBroker kafka, @TempDir Path home) throws Exception {
        String topic = "many-shards";
        kafka.createTopic(topic, 8, Map.of());
        TestTopics.produceSampleLogs(kafka, topic, RECORDS);
        Http http = es.http();
        http.send("DELETE", "/" + topic + "?ignore_unavailable=true", null);
        http.send(
                        "PUT",
                        "/" + topic,
                        "{\"settings\":{\"number_of_shards\":" + SHARDS + ",\"number_of_replicas\":0,"
                                + "\"refresh_interval\":\"30s\",\"translog.durability\":\"async\"}}")
                .requireOk("create " + topic);
        Path config = home.resolve("many-shards.yaml");
        Files.writeString(
                config,
                String.join(
                        "\n",
                        "elasticsearch: {hosts: [" + es.url() + "]}",
                        "kafka: {bootstrap_servers: \"" + kafka.bootstrapServers()
                                + "\", group_id: many-shards, starting_offsets: earliest}",
                        "job: {name: many-shards, parallelism: 8, checkpoint_interval: 5s, bounded: true}",
                        "bulk: {topology: " + System.getProperty("kes.memory.topology", "keyed") + "}",
                        "routes:",
                        "  - {topics: [" + topic + "], index: " + topic + ", id: kafka}"));

        try (KesProcess job = KesProcess.binKesWithHeap(
                home,
                HEAP,
                "run",
                "--config",
                config.toString(),
                "--flink-conf",
                KesProcess.localFlinkConf(home).toString())) {
            assertThat(job.awaitExit(Duration.ofMinutes(6)))
                    .as("job ended; console:\n%s", job.console())
                    .isTrue();
            assertThat(job.console()).doesNotContain("OutOfMemoryError");
            assertThat(job.exitCode()).as(job.console()).isZero();
        }
        assertThat(http.refreshAndCount(topic)).isEqualTo(RECORDS);
        long indexed = Http.longField(
                http.get("/" + topic + "/_stats/indexing?filter_path=_all.primaries.indexing.index_total")
                        .requireOk("indexing stats")
                        .body(),
                "index_total");
        assertThat(indexed)
                .as("index operations: a restart would have replayed records")
                .isEqualTo(RECORDS);
    }
}
