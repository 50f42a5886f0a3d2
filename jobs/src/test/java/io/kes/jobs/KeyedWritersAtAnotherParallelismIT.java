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
        KesConfig config = KesConfig.parse(
                String.join(
                        "\n",
                        "elasticsearch: {hosts: [" + es.url() + "]}",
                        "kafka: {bootstrap_servers: \"" + kafka.bootstrapServers() + "\", starting_offsets: earliest}",
                        "bulk: {topology: keyed, max_docs: 50}",
                        "job: {parallelism: " + ROUTERS + ", checkpoint_interval: 1s, bounded: true}",
                        "routes:",
                        "  - {topics: [" + name + "], index: " + name + ", id: key}"),
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

        for (int writer = 0; writer < WRITERS; writer++) {
            assertThat(ProgressReporter.sum("numRecordsIn", "bulk writer#" + writer))
                    .as("documents received by writer %d of %d", writer, WRITERS)
                    .isPositive();
        }
        assertThat(TestTopics.numbersById(es, name, "v", KEYS + 10))
                .as("every key at its last value")
                .isEqualTo(expected);
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
