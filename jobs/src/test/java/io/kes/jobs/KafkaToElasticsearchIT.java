package io.kes.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.jobs.config.KesConfig;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.KafkaBroker;
import io.kes.stack.junit.ElasticsearchExtension;
import io.kes.stack.junit.KafkaExtension;
import java.util.Map;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The whole job against a real Kafka broker and a real Elasticsearch node, in a MiniCluster. */
@ExtendWith({ElasticsearchExtension.class, KafkaExtension.class})
class KafkaToElasticsearchIT {

    @Test
    void everyRecordOfTheTopicBecomesExactlyOneDocumentAndAReplayDuplicatesNothing(ElasticsearchNode es, KafkaBroker kafka)
            throws Exception {
        String topic = "it-app-logs";
        String index = "it-app-logs";
        int records = 20_000;
        kafka.createTopic(topic, 3, Map.of());
        TestTopics.produceSampleLogs(kafka, topic, records);
        es.http().send("PUT", "/" + index, "{\"settings\":{\"number_of_shards\":6,\"number_of_replicas\":0}}").requireOk("create index");

        KesConfig config = KesConfig.parse(String.join("\n",
                "elasticsearch:",
                "  hosts: [" + es.url() + "]",
                "kafka:",
                "  bootstrap_servers: " + kafka.bootstrapServers(),
                "  group_id: it",
                "  starting_offsets: earliest",
                "routes:",
                "  - topics: [" + topic + "]",
                "    index: " + index,
                "job:",
                "  parallelism: 2",
                "  checkpoint_interval: 2s",
                "  bounded: true"), Map.of());

        runToEnd(config);
        assertThat(es.http().refreshAndCount(index)).isEqualTo(records);

        runToEnd(config); // the same offsets again: ids from Kafka coordinates overwrite
        assertThat(es.http().refreshAndCount(index)).isEqualTo(records);
    }

    private static void runToEnd(KesConfig config) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(2);
        KesJob.build(env, config);
        env.execute("kafka-to-elasticsearch-it");
    }
}
