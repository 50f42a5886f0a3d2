package io.kes.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.jobs.cli.ProgressReporter;
import io.kes.jobs.config.KesConfig;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.KafkaBroker;
import io.kes.stack.SharedServers;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A savepoint an earlier kes build took restores on this one, at another parallelism, and the job
 * goes on from the savepoint's offsets with every key ending at its last value. The savepoints are
 * test resources ({@code src/test/resources/savepoints/<job>/}, one folder per job shape, and its
 * README says which kes commit and Flink version wrote them), as flink-connector-kafka keeps one
 * savepoint per state version for {@code KafkaSourceMigrationITCase}: a change that breaks restoring
 * them (an operator's uid, the source's state, a serializer's format) fails here, not at a user's
 * upgrade.
 *
 * <p>Each savepoint was taken by {@link #writeSavepoint} after the job had indexed the first
 * {@link #BEFORE} records and before any other existed. The restore produces the same records
 * again, then {@link #AFTER} more that give every key new values, restores into a new index, and
 * checks that the source read exactly the records after the savepoint (its offsets were restored,
 * not the configured {@code starting_offsets: earliest}) and that every key holds its last value.
 *
 * <p>To take them again (after a deliberate break, with the upgrade note it needs in
 * docs/deployment.md): {@code ./mvnw -pl jobs verify -Dit.test=SavepointCompatibilityIT
 * -Dkes.savepoints.write=$PWD/jobs/src/test/resources/savepoints}, then update the README there.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SavepointCompatibilityIT {

    private static final int KEYS = 200;
    /** Records in the topic when the savepoint was taken: every key twice. */
    private static final int BEFORE = 2 * KEYS;
    /** Records the restored job reads: every key three more times, interleaved. */
    private static final int AFTER = 3 * KEYS;

    /** The job shapes whose savepoints are kept: parallelism at the savepoint and at the restore. */
    enum Shape {
        YAML_CHAINED_AT_2("yaml-chained-p2", "chained", 2, 3),
        YAML_KEYED_AT_4("yaml-keyed-p4", "keyed", 4, 2);

        final String folder;
        final String topology;
        final int parallelism;
        final int restoredAt;

        Shape(String folder, String topology, int parallelism, int restoredAt) {
            this.folder = folder;
            this.topology = topology;
            this.parallelism = parallelism;
            this.restoredAt = restoredAt;
        }

        /** The topic (its name and partitions are in the savepoint's source state) and the index. */
        String topic() {
            return "savepoint-" + folder;
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Shape.class)
    void aSavepointOfAnEarlierBuildRestoresAtAnotherParallelismAndEveryKeyEndsAtItsLastValue(Shape shape)
            throws Exception {
        URL kept = SavepointCompatibilityIT.class.getResource("/savepoints/" + shape.folder + "/_metadata");
        assertThat(kept).as("the kept savepoint of %s", shape.folder).isNotNull();
        ElasticsearchNode es = SharedServers.elasticsearch();
        KafkaBroker kafka = SharedServers.kafka();
        List<ProducerRecord<byte[], byte[]>> records = records(shape.topic(), BEFORE + AFTER);
        TestTopics.produceRecords(kafka, shape.topic(), 2, records);
        createIndex(es, shape.topic());

        Configuration restore = new Configuration();
        restore.set(
                StateRecoveryOptions.SAVEPOINT_PATH,
                Path.of(kept.toURI()).getParent().toUri().toString());
        JobClient job = start(config(es, kafka, shape, shape.restoredAt), shape.restoredAt, restore);
        Map<String, Long> expected = lastValues(records);
        try {
            awaitEveryKey(es, shape.topic(), expected);
        } finally {
            job.cancel().get(1, TimeUnit.MINUTES);
        }

        assertThat(ProgressReporter.sum("numRecordsOut", "Source"))
                .as("records read after the restore: those after the savepoint's offsets only")
                .isEqualTo(AFTER);
        assertThat(TestTopics.numbersById(es, shape.topic(), "v", KEYS + 10))
                .as("every key at its last value")
                .isEqualTo(expected);
    }

    /** Takes this build's savepoint of {@code shape} into {@code kes.savepoints.write}/{folder}; not a test. */
    @ParameterizedTest(name = "write {0}")
    @EnumSource(Shape.class)
    @EnabledIfSystemProperty(named = "kes.savepoints.write", matches = ".+")
    void writeSavepoint(Shape shape, @TempDir Path savepoints) throws Exception {
        ElasticsearchNode es = SharedServers.elasticsearch();
        String name = shape.topic() + "-write";
        // the restore reads the topic under the savepoint's name: take it with that name on a broker of its own
        try (KafkaBroker own = KafkaBroker.forTests().start()) {
            TestTopics.produceRecords(own, shape.topic(), 2, records(shape.topic(), BEFORE));
            createIndex(es, name);
            KesConfig config = config(es, own, shape, shape.parallelism, name);
            JobClient job = start(config, shape.parallelism, new Configuration());
            awaitEveryKey(es, name, lastValues(records(shape.topic(), BEFORE)));
            while (ProgressReporter.sum("numRecordsOut", "Source") < BEFORE) {
                Thread.sleep(100);
            }
            Path taken = Path.of(URI.create(
                    job.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                            .get(2, TimeUnit.MINUTES)));
            Path into = Path.of(System.getProperty("kes.savepoints.write")).resolve(shape.folder);
            Files.createDirectories(into);
            try (var files = Files.list(taken)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    Files.copy(f, into.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    /**
     * {@code count} records over every key in turn, values counting up, alternately on partitions 0
     * and 1: the same every time, so that the savepoint's offsets point at the same records.
     */
    private static List<ProducerRecord<byte[], byte[]>> records(String topic, int count) {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String key = "k" + (i % KEYS);
            records.add(new ProducerRecord<>(
                    topic, (i % KEYS) % 2, TestTopics.utf8(key), TestTopics.utf8("{\"v\":" + i + "}")));
        }
        return records;
    }

    private static Map<String, Long> lastValues(List<ProducerRecord<byte[], byte[]>> records) {
        Map<String, Long> last = new TreeMap<>();
        for (int i = 0; i < records.size(); i++) {
            last.put(new String(records.get(i).key(), StandardCharsets.UTF_8), (long) i);
        }
        return last;
    }

    private static void createIndex(ElasticsearchNode es, String index) throws Exception {
        es.http()
                .send("PUT", "/" + index, "{\"settings\":{\"number_of_shards\":3,\"number_of_replicas\":0}}")
                .requireOk("create " + index);
    }

    private static KesConfig config(ElasticsearchNode es, KafkaBroker kafka, Shape shape, int parallelism) {
        return config(es, kafka, shape, parallelism, shape.topic());
    }

    /** The job as the savepoint's: reads the topic of the shape's name, writes {@code index} by the records' keys. */
    private static KesConfig config(
            ElasticsearchNode es, KafkaBroker kafka, Shape shape, int parallelism, String index) {
        return KesConfig.parse(
                String.join(
                        "\n",
                        "elasticsearch: {hosts: [" + es.url() + "]}",
                        "kafka: {bootstrap_servers: \"" + kafka.bootstrapServers() + "\", group_id: " + index
                                + ", starting_offsets: earliest}",
                        "bulk: {topology: " + shape.topology + "}",
                        "job: {parallelism: " + parallelism + ", checkpoint_interval: 1s}",
                        "routes:",
                        "  - {topics: [" + shape.topic() + "], index: " + index + ", id: key}"),
                Map.of());
    }

    private static JobClient start(KesConfig config, int parallelism, Configuration flink) throws Exception {
        Configuration conf = new Configuration(flink);
        conf.setString("metrics.reporter.kesprogress.factory.class", ProgressReporter.Factory.class.getName());
        ProgressReporter.reset();
        return KesJob.start(StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf), config);
    }

    /** Until every key of {@code expected} holds its value in {@code index} (2 minutes at most; the assertion after says what differs). */
    private static void awaitEveryKey(ElasticsearchNode es, String index, Map<String, Long> expected) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (System.nanoTime() < deadline) {
            try {
                if (TestTopics.numbersById(es, index, "v", KEYS + 10).equals(expected)) {
                    return;
                }
            } catch (IllegalStateException notYet) {
                // the index answers once kes's first bulk landed
            }
            Thread.sleep(200);
        }
    }
}
