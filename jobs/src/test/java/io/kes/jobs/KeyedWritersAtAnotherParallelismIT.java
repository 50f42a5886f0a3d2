package io.kes.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.jobs.cli.ProgressReporter;
import io.kes.jobs.config.KesConfig;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.KafkaBroker;
import io.kes.stack.SharedServers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The keyed topology when its writers run at another parallelism than its routers, as the
 * Kubernetes operator's autoscaler sets it ({@code pipeline.jobvertex-parallelism-overrides}, one
 * vertex at a time; here the job graph's writer vertex is given its own parallelism): the routers key by the writers that really run, so that the exchange
 * ({@code key mod writers}) sends each slot where the routers mean it to go, and an id never reaches
 * two writers at once.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class KeyedWritersAtAnotherParallelismIT {

    private static final int ROUTERS = 2;
    private static final int WRITERS = 3;
    private static final int KEYS = 300;
    private static final int RECORDS = 6_000;

    /**
     * A 1-shard index at 3 writers: its one slot is split over every writer (none idle), which the
     * routers can only do when they key by 3, not by their own 2.
     */
    @Test
    void routersAtTwoKeyOverThreeWritersAndEveryKeyEndsAtItsLastValue() throws Exception {
        ElasticsearchNode es = SharedServers.elasticsearch();
        KafkaBroker kafka = SharedServers.kafka();
        String name = "keyed-writers-override";
        List<TestTopics.KeyValue> records = new ArrayList<>();
        Map<String, Long> expected = new TreeMap<>();
        for (int i = 0; i < RECORDS; i++) {
            String key = "k" + (i % KEYS);
            records.add(TestTopics.KeyValue.of(key, "{\"v\":" + i + "}"));
            expected.put(key, (long) i);
        }
        TestTopics.produce(kafka, name, Map.of(), records);
        es.http()
                .send("PUT", "/" + name, "{\"settings\":{\"number_of_shards\":1,\"number_of_replicas\":0}}")
                .requireOk("create " + name);
        runWithWritersOverridden(es, kafka, name, name);

        for (int writer = 0; writer < WRITERS; writer++) {
            assertThat(ProgressReporter.sum("numRecordsIn", "bulk writer#" + writer))
                    .as("documents received by writer %d of %d", writer, WRITERS)
                    .isPositive();
        }
        assertThat(TestTopics.numbersById(es, name, "v", KEYS + 10))
                .as("every key at its last value")
                .isEqualTo(expected);
    }

    /**
     * A daily index rolling over mid-stream, as a name template makes it: the records of the second
     * day go to a new index of another shard count, whose slots the routers lay out when they first
     * see it, still keyed by the 3 writers that run. Every key of each day's index ends at its last
     * value there.
     */
    @Test
    void throughARolloverToANewDailyIndexEveryKeyOfEachDayEndsAtItsLastValue() throws Exception {
        ElasticsearchNode es = SharedServers.elasticsearch();
        KafkaBroker kafka = SharedServers.kafka();
        String name = "keyed-writers-rollover";
        List<TestTopics.KeyValue> records = new ArrayList<>();
        Map<String, Map<String, Long>> expected = new TreeMap<>();
        for (int i = 0; i < RECORDS; i++) {
            String key = "k" + (i % KEYS);
            // the second day starts at 40%: both days' slots are busy while the routers switch
            String day = i < RECORDS * 2 / 5 ? "d1" : "d2";
            records.add(TestTopics.KeyValue.of(key, "{\"v\":" + i + ",\"day\":\"" + day + "\"}"));
            expected.computeIfAbsent(name + "-" + day, d -> new TreeMap<>()).put(key, (long) i);
        }
        TestTopics.produce(kafka, name, Map.of(), records);
        int shards = 1;
        for (String index : expected.keySet()) {
            es.http()
                    .send(
                            "PUT",
                            "/" + index,
                            "{\"settings\":{\"number_of_shards\":" + shards + ",\"number_of_replicas\":0}}")
                    .requireOk("create " + index);
            shards = 5; // the new day's index has other slots than the old one's
        }

        runWithWritersOverridden(es, kafka, name, name + "-{day}");

        for (var day : expected.entrySet()) {
            assertThat(TestTopics.numbersById(es, day.getKey(), "v", KEYS + 10))
                    .as("every key of %s at its last value there", day.getKey())
                    .isEqualTo(day.getValue());
        }
    }

    /** The bounded keyed job from {@code topic} into {@code index} (a name or a template), its routers at 2 and writers at 3. */
    private static void runWithWritersOverridden(ElasticsearchNode es, KafkaBroker kafka, String topic, String index)
            throws Exception {
        KesConfig config = KesConfig.parse(
                String.join(
                        "\n",
                        "elasticsearch: {hosts: [" + es.url() + "]}",
                        "kafka: {bootstrap_servers: \"" + kafka.bootstrapServers() + "\", starting_offsets: earliest}",
                        "bulk: {topology: keyed, max_docs: 50}",
                        "job: {parallelism: " + ROUTERS + ", checkpoint_interval: 1s, bounded: true}",
                        "routes:",
                        "  - {topics: [" + topic + "], index: \"" + index + "\", id: key}"),
                Map.of());

        Configuration flink = new Configuration();
        flink.setString("metrics.reporter.kesprogress.factory.class", ProgressReporter.Factory.class.getName());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(ROUTERS, flink);
        KesJob.build(env, config);
        JobGraph graph = env.getStreamGraph().getJobGraph();
        writerVertex(graph).setParallelism(WRITERS); // what an override of the writers' vertex does
        ProgressReporter.reset();
        try (MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(flink)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(WRITERS)
                .build())) {
            cluster.start();
            cluster.executeJobBlocking(graph);
        }
    }

    /** The writers' own vertex: keyed, they are not chained to the routers. */
    private static JobVertex writerVertex(JobGraph graph) {
        for (JobVertex vertex : graph.getVertices()) {
            if (vertex.getName().contains("bulk writer") && !vertex.getName().contains("shard slots")) {
                return vertex;
            }
        }
        throw new AssertionError("no writer vertex of its own: the job is not keyed");
    }
}
