package io.kes.jobs.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.jobs.config.KesConfig;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeTopicsResult;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.internals.KafkaFutureImpl;
import org.junit.jupiter.api.Test;

class KafkaCheckTest {

    /** Issue 27 item 8: 'logs-Ba' and 'logs-CB' share String.hashCode, the topic part of a Kafka-coordinate id. */
    @Test
    void topicsWhoseKafkaCoordinateIdsWouldCollideAreFound() {
        assertThat("logs-Ba".hashCode()).isEqualTo("logs-CB".hashCode());
        assertThat(KafkaCheck.collidingTopics(List.of("orders", "logs-Ba", "logs-CB")))
                .contains(List.of("logs-Ba", "logs-CB"));
        assertThat(KafkaCheck.collidingTopics(List.of("orders", "logs-Ba", "logs-Bb")))
                .isEmpty();
    }

    /**
     * Issue 27 item 8: the preflight of a route refuses {@code id: kafka} over such topics (logs-Ba
     * and logs-CB wrote 5,000 of 10,000 records over each other). The route's check is private and
     * takes the admin client: called here directly, with an admin whose topics stay undescribed.
     */
    @Test
    void thePreflightRefusesKafkaIdsOverTopicsWhoseHashesCollide() throws Exception {
        KesConfig config = KesConfig.parse(
                "elasticsearch: {hosts: [\"http://localhost:9200\"]}\n"
                        + "kafka: {bootstrap_servers: localhost:9092}\nroutes: [{topics: [logs-Ba, logs-CB], index: logs, id: kafka}]",
                Map.of());
        KafkaFutureImpl<Map<String, TopicDescription>> undescribed = new KafkaFutureImpl<>();
        undescribed.completeExceptionally(new IllegalStateException("not described in this test"));
        DescribeTopicsResult described = new DescribeTopicsResult(null, Map.of()) {
            @Override
            public KafkaFuture<Map<String, TopicDescription>> allTopicNames() {
                return undescribed;
            }
        };
        Admin admin = (Admin) Proxy.newProxyInstance(
                Admin.class.getClassLoader(), new Class<?>[] {Admin.class}, (proxy, method, args) -> {
                    if (method.getName().equals("describeTopics")) {
                        return described;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        PreflightReport report = new PreflightReport();

        new KafkaCheck(config).route(report, admin, "routes[0]", config.routes.get(0), Set.of("logs-Ba", "logs-CB"));

        assertThat(report.failures())
                .singleElement()
                .asString()
                .contains("routes[0] id", "'logs-Ba' and 'logs-CB' have the same 32-bit topic hash");
    }
}
