package io.kes.sql;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.KafkaBroker;
import io.kes.stack.junit.ElasticsearchExtension;
import io.kes.stack.junit.KafkaExtension;
import java.net.URI;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A SQL job's savepoint, kept from an earlier kes build ({@code
 * src/test/resources/savepoints/sql-primary-key-p2/}, its README says which), restores on this
 * build at another parallelism: an {@code INSERT} from a Kafka table into a {@code 'connector' =
 * 'kes'} table with a PRIMARY KEY, as jobs' {@code SavepointCompatibilityIT} does for the YAML job.
 *
 * <p>The savepoint was taken once the job had indexed {@link #KEYS} keys twice and {@link #EARLY}
 * keys that only those first records carry. The restore produces the same records again and then
 * new values for the first keys only, into a new index: every key must end at its last value, and
 * no early-only key may be there (the source went on from the savepoint's offsets, not from the
 * table's {@code earliest-offset}).
 *
 * <p>To take it again: {@code ./mvnw -pl sql verify -Dit.test=SqlSavepointCompatibilityIT
 * -Dkes.savepoints.write=$PWD/sql/src/test/resources/savepoints}.
 */
@ExtendWith({ElasticsearchExtension.class, KafkaExtension.class})
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SqlSavepointCompatibilityIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String FOLDER = "sql-primary-key-p2";
    /** The topic: its name and partitions are in the savepoint's source state. */
    private static final String TOPIC = "savepoint-" + FOLDER;

    private static final int KEYS = 100;
    private static final int EARLY = 10;
    /** Records in the topic when the savepoint was taken: every key twice, then each early-only key once. */
    private static final int BEFORE = 2 * KEYS + EARLY;
    /** Records after it: every key (not the early ones) three more times. */
    private static final int AFTER = 3 * KEYS;

    @Test
    void aSqlSavepointOfAnEarlierBuildRestoresAtAnotherParallelismFromItsOffsets(
            ElasticsearchNode es, KafkaBroker kafka) throws Exception {
        URL kept = SqlSavepointCompatibilityIT.class.getResource("/savepoints/" + FOLDER + "/_metadata");
        assertThat(kept).as("the kept savepoint of %s", FOLDER).isNotNull();
        produce(kafka, BEFORE + AFTER);
        String index = TOPIC;
        createIndex(es, index);

        Configuration restore = new Configuration();
        restore.setString(
                "execution.state-recovery.path",
                Path.of(kept.toURI()).getParent().toUri().toString());
        JobClient job = insert(es, kafka, index, 3, restore);
        Map<String, Long> expected = lastValues(BEFORE + AFTER, false);
        try {
            awaitValues(es, index, expected);
        } finally {
            job.cancel().get(1, TimeUnit.MINUTES);
        }
        assertThat(values(es, index))
                .as("every key at its last value, and none of the keys only the records before the savepoint carry")
                .isEqualTo(expected);
    }

    /** Takes this build's savepoint into {@code kes.savepoints.write}/{@value #FOLDER}; not a test. */
    @Test
    @EnabledIfSystemProperty(named = "kes.savepoints.write", matches = ".+")
    void writeSavepoint(ElasticsearchNode es, @TempDir Path savepoints) throws Exception {
        // the restore reads the topic under the savepoint's name: take it on a broker of its own
        try (KafkaBroker own = KafkaBroker.forTests().start()) {
            produce(own, BEFORE);
            String index = TOPIC + "-write";
            createIndex(es, index);
            JobClient job = insert(es, own, index, 2, new Configuration());
            awaitValues(es, index, lastValues(BEFORE, true));
            Path taken = Path.of(URI.create(
                    job.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                            .get(2, TimeUnit.MINUTES)));
            Path into = Path.of(System.getProperty("kes.savepoints.write")).resolve(FOLDER);
            Files.createDirectories(into);
            try (var files = Files.list(taken)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    Files.copy(f, into.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    /** The job: the topic's rows, upserted by their key. Unbounded; the caller cancels or stops it. */
    private static JobClient insert(
            ElasticsearchNode es, KafkaBroker kafka, String index, int parallelism, Configuration flink)
            throws Exception {
        Configuration conf = new Configuration(flink);
        conf.setString("parallelism.default", String.valueOf(parallelism));
        conf.setString("execution.checkpointing.interval", "1s");
        StreamTableEnvironment tables =
                StreamTableEnvironment.create(StreamExecutionEnvironment.getExecutionEnvironment(conf));
        tables.executeSql("""
                CREATE TABLE events (k STRING, v BIGINT) WITH (
                  'connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s',
                  'properties.group.id' = '%s', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json'
                )""".formatted(TOPIC, kafka.bootstrapServers(), index));
        tables.executeSql("""
                CREATE TABLE docs (k STRING, v BIGINT, PRIMARY KEY (k) NOT ENFORCED)
                WITH ('connector' = 'kes', 'hosts' = '%s', 'index' = '%s')""".formatted(es.url(), index));
        return tables.executeSql("INSERT INTO docs SELECT k, v FROM events")
                .getJobClient()
                .orElseThrow();
    }

    /**
     * The first {@code count} records of the topic, always the same: every key in turn, alternately
     * on partitions 0 and 1, values counting up; after the first two rounds, the early-only keys.
     */
    private static String[] record(int i) {
        String key;
        if (i < 2 * KEYS) {
            key = "k" + (i % KEYS);
        } else if (i < BEFORE) {
            key = "early" + (i - 2 * KEYS);
        } else {
            key = "k" + ((i - BEFORE) % KEYS);
        }
        return new String[] {key, "{\"k\":\"" + key + "\",\"v\":" + i + "}"};
    }

    private static int partition(int i) {
        return i % 2;
    }

    private static void produce(KafkaBroker kafka, int count) throws Exception {
        kafka.createTopic(TOPIC, 2, Map.of());
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        try (var producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(TOPIC, partition(i), null, record(i)[1]))
                        .get();
            }
        }
    }

    /**
     * Each key's last value among the first {@code count} records; with {@code early} false, the
     * early-only keys left out (a restore from the savepoint never reads them).
     */
    private static Map<String, Long> lastValues(int count, boolean early) {
        Map<String, Long> last = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            String key = record(i)[0];
            if (early || !key.startsWith("early")) {
                last.put(key, (long) i);
            }
        }
        return last;
    }

    private static void createIndex(ElasticsearchNode es, String index) throws Exception {
        es.http().send("DELETE", "/" + index + "?ignore_unavailable=true", null);
        es.http()
                .send("PUT", "/" + index, "{\"settings\":{\"number_of_shards\":3,\"number_of_replicas\":0}}")
                .requireOk("create " + index);
    }

    /** Every document's {@code v} by id (the key), after a refresh. */
    private static Map<String, Long> values(ElasticsearchNode es, String index) throws Exception {
        es.http().send("POST", "/" + index + "/_refresh", null).requireOk("refresh");
        Map<String, Long> out = new TreeMap<>();
        JSON.readTree(es.http()
                        .send("POST", "/" + index + "/_search", "{\"size\":" + (KEYS + EARLY + 10) + "}")
                        .requireOk("search")
                        .body())
                .path("hits")
                .path("hits")
                .forEach(h -> out.put(
                        h.path("_id").asText(), h.path("_source").path("v").asLong()));
        return out;
    }

    private static void awaitValues(ElasticsearchNode es, String index, Map<String, Long> expected) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (System.nanoTime() < deadline && !values(es, index).equals(expected)) {
            Thread.sleep(200);
        }
    }
}
