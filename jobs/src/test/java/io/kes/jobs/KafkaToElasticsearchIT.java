package io.kes.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.jobs.config.KesConfig;
import io.kes.stack.Http;
import io.kes.stack.KafkaBroker;
import io.kes.stack.SearchNode;
import io.kes.stack.SharedServers;
import io.kes.stack.junit.SearchTarget;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The whole job against a real Kafka broker and a real search node, in a MiniCluster: Elasticsearch
 * 8.19 and 9.x, OpenSearch 2.19 and 3.x.
 */
class KafkaToElasticsearchIT {

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.kes.stack.junit.SearchTarget#newestOrAll")
    void everyRecordOfTheTopicBecomesExactlyOneDocumentAndAReplayDuplicatesNothing(SearchTarget target)
            throws Exception {
        SearchNode es = target.node();
        KafkaBroker kafka = SharedServers.kafka();
        String topic = "it-app-logs";
        String index = "it-app-logs";
        int records = 20_000;
        boolean produced;
        try (var admin = kafka.admin()) {
            produced = admin.listTopics().names().get().contains(topic);
        }
        if (!produced) { // one topic, the same records, for every target
            kafka.createTopic(topic, 3, Map.of());
            TestTopics.produceSampleLogs(kafka, topic, records);
        }
        es.http()
                .send("PUT", "/" + index, "{\"settings\":{\"number_of_shards\":6,\"number_of_replicas\":0}}")
                .requireOk("create index");

        KesConfig config = KesConfig.parse(
                String.join(
                        "\n",
                        "elasticsearch:",
                        "  hosts: [" + es.url() + "]",
                        "kafka:",
                        "  bootstrap_servers: " + kafka.bootstrapServers(),
                        "  group_id: it-" + target.engine().command() + "-" + target.version(),
                        "  starting_offsets: earliest",
                        "routes:",
                        "  - topics: [" + topic + "]",
                        "    index: " + index,
                        "job:",
                        "  parallelism: 2",
                        "  checkpoint_interval: 2s",
                        "  bounded: true"),
                Map.of());

        runToEnd(config);
        assertThat(es.http().refreshAndCount(index)).isEqualTo(records);

        runToEnd(config); // the same offsets again: ids from Kafka coordinates overwrite
        assertThat(es.http().refreshAndCount(index)).isEqualTo(records);
    }

    /**
     * The route's {@code index_template} (a composable template with {@code data_stream: {}}) works
     * the same on every target: the data stream's backing index has the template's shards.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.kes.stack.junit.SearchTarget#newestOrAll")
    void aDataStreamGetsItsRoutesIndexTemplate(SearchTarget target) throws Exception {
        SearchNode es = target.node();
        String topic = produceOnce("it-templated", target, 300);

        TestTopics.runBounded(
                es,
                SharedServers.kafka(),
                "  - topics: [" + topic + "]\n    data_stream: it-templated\n"
                        + "    index_template: {shards: 3, replicas: 0}");

        assertThat(es.http().refreshAndCount("it-templated")).isEqualTo(300);
        String settings = es.http()
                .get("/it-templated/_settings/index.number_of_shards?flat_settings=true")
                .requireOk("settings")
                .body();
        assertThat(settings)
                .contains("\"index.number_of_shards\":\"3\"")
                .doesNotContain("\"index.number_of_shards\":\"1\"");
    }

    /** {@code pipeline:} of a route: every document went through it (where the node has ingest processors). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.kes.stack.junit.SearchTarget#withIngestProcessors")
    void everyDocumentOfARouteGoesThroughItsPipeline(SearchTarget target) throws Exception {
        SearchNode es = target.node();
        String topic = produceOnce("it-pipelined", target, 300);
        es.http()
                .send(
                        "PUT",
                        "/_ingest/pipeline/it-stamp",
                        "{\"processors\":[{\"set\":{\"field\":\"stamped\",\"value\":true}}]}")
                .requireOk("pipeline");

        TestTopics.runBounded(
                es, SharedServers.kafka(), "  - {topics: [" + topic + "], index: it-pipelined, pipeline: it-stamp}");

        assertThat(es.http().refreshAndCount("it-pipelined")).isEqualTo(300);
        assertThat(Http.longField(
                        es.http()
                                .get("/it-pipelined/_count?q=stamped:true")
                                .requireOk("count")
                                .body(),
                        "count"))
                .as("documents that went through the pipeline")
                .isEqualTo(300);
    }

    /** A topic of {@code records} JSON records for this target alone (the broker is shared by every target). */
    private static String produceOnce(String prefix, SearchTarget target, int records) throws Exception {
        String topic = prefix + "-" + target.engine().command() + "-"
                + target.version().replace('.', '-');
        List<TestTopics.KeyValue> values = new ArrayList<>();
        for (int i = 0; i < records; i++) {
            values.add(TestTopics.KeyValue.of(null, "{\"n\":" + i + "}"));
        }
        TestTopics.produce(SharedServers.kafka(), topic, Map.of(), values);
        return topic;
    }

    private static void runToEnd(KesConfig config) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(2);
        KesJob.build(env, config);
        env.execute("kafka-to-elasticsearch-it");
    }
}
