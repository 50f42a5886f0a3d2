package io.kes.stack;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.stack.junit.ElasticsearchExtension;
import io.kes.stack.junit.KafkaExtension;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith({ElasticsearchExtension.class, KafkaExtension.class})
class RealServersIT {

    @Test
    void elasticsearchNodeIsHealthyAndAnswersWithItsVersion(ElasticsearchNode node) throws Exception {
        Http.Response health = node.http().get("/_cluster/health").requireOk("health");
        assertThat(health.body()).contains("\"status\":\"green\"");
        Http.Response nodes = node.http()
                .get("/_nodes/_local/jvm?filter_path=nodes.*.version")
                .requireOk("nodes");
        assertThat(nodes.body()).contains(node.version());
    }

    /**
     * The distribution ({@code version.distribution}) is how the connector tells OpenSearch from
     * Elasticsearch. Only the default line here: the connector's tests run both.
     */
    @Test
    void openSearchNodeIsHealthyAndSaysItIsOpenSearch() throws Exception {
        OpenSearchNode node = SharedServers.opensearch();
        String version = node.version();
        Http.Response health = node.http().get("/_cluster/health").requireOk("health");
        assertThat(health.body()).contains("\"status\":\"green\"");
        assertThat(node.http().get("/").requireOk("root").body())
                .contains("\"distribution\" : \"opensearch\"")
                .contains("\"number\" : \"" + version + "\"");
    }

    @Test
    void kafkaBrokerCreatesTopicsWithPartitions(KafkaBroker kafka) throws Exception {
        kafka.createTopic("stack-smoke", 3, Map.of());
        try (var admin = kafka.admin()) {
            var description =
                    admin.describeTopics(Set.of("stack-smoke")).allTopicNames().get(20, TimeUnit.SECONDS);
            assertThat(description.get("stack-smoke").partitions()).hasSize(3);
        }
    }
}
