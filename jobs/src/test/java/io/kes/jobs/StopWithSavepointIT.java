package io.kes.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.jobs.cli.ProgressReporter;
import io.kes.jobs.config.KesConfig;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.FaultProxy;
import io.kes.stack.KafkaBroker;
import io.kes.stack.SharedServers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code flink stop} (a stop with a savepoint, without drain) at a moment when the writer waits on
 * a timer: Flink neither calls the operators' {@code finish()} on such a stop nor fires their
 * processing-time timers after it quiesced them, which happens before the savepoint's barrier
 * reaches the writer. Whatever the writer waits for then (a buffer in its coalesce window, a retry
 * backing off after 429s, a bulk held in a node that it polls the task listing for) must still
 * happen: the savepoint completes within seconds, every record it covers is in the index, and the
 * job restored from it ends with every key at its last value.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class StopWithSavepointIT {

    private static final int KEYS = 500;
    /** Records of each round: every key a few times, its last value last. */
    private static final int ROUND = 2_000;
    /** Far below Flink's checkpoint timeout (10 min), which a hanging stop runs into. */
    private static final Duration STOP_WITHIN = Duration.ofSeconds(40);

    /** What the writer waits on, on a timer, when the stop comes. */
    enum Moment {
        /** Part-full buffers in a long coalesce window, nothing in flight. */
        BUFFERS_COALESCING("  coalesce: 30s\n  linger: 30s\n", ""),
        /** Bulks answered 429 by every node, waiting out their backoff. */
        RETRIES_BACKING_OFF("", ""),
        /** A bulk that got no answer within the socket timeout and still runs in the node: kes polls its task listing. */
        BULK_HELD_IN_NODE("", "  socket_timeout: 2s\n");

        final String bulk;
        final String elasticsearch;

        Moment(String bulk, String elasticsearch) {
            this.bulk = bulk;
            this.elasticsearch = elasticsearch;
        }
    }

    @ParameterizedTest
    @EnumSource(Moment.class)
    void aStopWithASavepointCompletesWithinSecondsAndItsRestoreEndsEveryKeyAtItsLastValue(
            Moment moment, @TempDir Path savepoints) throws Exception {
        ElasticsearchNode es = SharedServers.elasticsearch();
        KafkaBroker kafka = SharedServers.kafka();
        String name = "stop-savepoint-" + moment.name().toLowerCase().replace('_', '-');
        kafka.createTopic(name, 1, Map.of());
        // One replica that one node cannot assign: a bulk sent with wait_for_active_shards=all
        // (the proxy's hold) waits in the node; every other write goes as usual.
        es.http()
                .send(
                        "PUT",
                        "/" + name,
                        "{\"settings\":{\"number_of_shards\":3,\"number_of_replicas\":"
                                + (moment == Moment.BULK_HELD_IN_NODE ? 1 : 0)
                                + ",\"refresh_interval\":\"1s\",\"translog.durability\":\"async\"}}")
                .requireOk("create " + name);

        try (FaultProxy proxy = FaultProxy.start("127.0.0.1", es.httpPort())) {
            JobClient job = start(config(proxy, kafka, name, moment), new Configuration());
            switch (moment) {
                case RETRIES_BACKING_OFF -> proxy.rejectBulksFor(Duration.ofSeconds(8));
                case BULK_HELD_IN_NODE -> proxy.holdBulksInElasticsearch(1, Duration.ofSeconds(8));
                default -> {}
            }
            produceRound(kafka, name, 0);
            await(() -> ProgressReporter.sum("numRecordsOut", "Source") >= ROUND, "the source read the first round");
            switch (moment) {
                case RETRIES_BACKING_OFF -> await(() -> proxy.stats().rejectedBulks() > 0, "a bulk was answered 429");
                case BULK_HELD_IN_NODE -> await(() -> proxy.stats().heldBulks() > 0, "a bulk is held in the node");
                default -> Thread.sleep(500);
            }

            long stopAt = System.nanoTime();
            String savepoint = job.stopWithSavepoint(
                            false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                    .get(STOP_WITHIN.toSeconds(), TimeUnit.SECONDS);
            System.out.printf(
                    "%s: the stop with a savepoint took %d ms%n", moment, (System.nanoTime() - stopAt) / 1_000_000);
            assertThat(TestTopics.numbersById(es, name, "v", KEYS + 10))
                    .as("the savepoint covers the whole first round: every key at its last value of it")
                    .isEqualTo(expected(0));

            proxy.heal();
            produceRound(kafka, name, 1);
            Configuration restore = new Configuration();
            restore.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
            // unbounded: a split restored from a savepoint keeps its state's stopping offset (none)
            JobClient restored = start(config(proxy, kafka, name, moment), restore);
            await(
                    () -> ProgressReporter.sum("numRecordsOut", "Source") >= ROUND,
                    "the restored job read the second round");
            long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
            while (!TestTopics.numbersById(es, name, "v", KEYS + 10).equals(expected(1))
                    && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            restored.cancel().get(1, TimeUnit.MINUTES);
            assertThat(ProgressReporter.sum("numRecordsOut", "Source"))
                    .as("the restored job read only the second round")
                    .isEqualTo(ROUND);
            assertThat(TestTopics.numbersById(es, name, "v", KEYS + 10))
                    .as("every key at its last value after the restore")
                    .isEqualTo(expected(1));
        }
    }

    /** Round {@code round}: {@code ROUND} records over {@code KEYS} keys, each value naming its round and position. */
    private static void produceRound(KafkaBroker kafka, String topic, int round) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        try (var producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < ROUND; i++) {
                String key = "k" + (i % KEYS);
                String value = "{\"v\":" + value(round, i) + "}";
                producer.send(new ProducerRecord<>(
                        topic, 0, key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
    }

    private static long value(int round, int i) {
        return round * 1_000_000L + i;
    }

    private static Map<String, Long> expected(int round) {
        Map<String, Long> last = new TreeMap<>();
        for (int i = 0; i < ROUND; i++) {
            last.put("k" + (i % KEYS), value(round, i));
        }
        return last;
    }

    private static KesConfig config(FaultProxy proxy, KafkaBroker kafka, String name, Moment moment) {
        return KesConfig.parse(
                String.join(
                        "\n",
                        "elasticsearch:",
                        "  hosts: [" + proxy.url() + "]",
                        "  primary_node_routing: false", // through the proxy, not around it
                        moment.elasticsearch,
                        "bulk:",
                        "  max_in_flight: 1",
                        moment.bulk,
                        "retry:",
                        "  initial_backoff: 1s",
                        "  max_backoff: 2s",
                        "  max_time: 2min",
                        "kafka:",
                        "  bootstrap_servers: " + kafka.bootstrapServers(),
                        "  group_id: " + name,
                        "  starting_offsets: earliest",
                        "routes:",
                        "  - topics: [" + name + "]",
                        "    index: " + name,
                        "    id: key",
                        "job:",
                        "  parallelism: 1",
                        "  checkpoint_interval: 1s"),
                Map.of());
    }

    private static JobClient start(KesConfig config, Configuration flink) throws Exception {
        Configuration conf = new Configuration(flink);
        conf.setString("metrics.reporter.kesprogress.factory.class", ProgressReporter.Factory.class.getName());
        conf.setString("restart-strategy.type", "none"); // a failure is the test's to see, not to retry
        ProgressReporter.reset();
        return KesJob.start(StreamExecutionEnvironment.createLocalEnvironment(1, conf), config);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within a minute: " + what);
            }
            Thread.sleep(50);
        }
    }
}
