package io.kes.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.jobs.config.KesConfig;
import io.kes.jobs.source.KesKafkaSource;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaSourcePropertiesTest {

    private static final String BASE = "elasticsearch: {hosts: [http://localhost:9200]}\n";

    private static KesConfig parse(String yaml) {
        return KesConfig.parse(BASE + yaml, Map.of());
    }

    @Test
    void aTopicPatternDiscoversNewTopicsEvery30SecondsByDefault() {
        KesConfig config =
                parse("kafka: {bootstrap_servers: localhost:9092}\nroutes: [{topic_pattern: 'logs-.*', index: logs}]");

        assertThat(KesKafkaSource.sourceProperties(config)).containsEntry("partition.discovery.interval.ms", "30000");
    }

    @Test
    void theUsersPartitionDiscoveryIntervalWinsOverKesDefault() {
        KesConfig config = parse(
                "kafka: {bootstrap_servers: localhost:9092, properties: {partition.discovery.interval.ms: '5000'}}\n"
                        + "routes: [{topic_pattern: 'logs-.*', index: logs}]");

        assertThat(KesKafkaSource.sourceProperties(config)).containsEntry("partition.discovery.interval.ms", "5000");
    }

    @Test
    void offsetsAreCommittedWithEveryCheckpointUnlessTheUserSaysOtherwise() {
        String routes = "routes: [{topics: [logs], index: logs}]";

        assertThat(KesKafkaSource.sourceProperties(parse("kafka: {bootstrap_servers: localhost:9092}\n" + routes)))
                .containsEntry("commit.offsets.on.checkpoint", "true")
                .doesNotContainKey("partition.discovery.interval.ms");
        assertThat(KesKafkaSource.sourceProperties(parse(
                        "kafka: {bootstrap_servers: localhost:9092, properties: {commit.offsets.on.checkpoint: 'false'}}\n"
                                + routes)))
                .containsEntry("commit.offsets.on.checkpoint", "false");
    }

    @Test
    void theBrokerHoldsAFetchUntil64KbOr100MsUnlessTheUserSaysOtherwise() {
        String routes = "routes: [{topics: [logs], index: logs}]";

        assertThat(KesKafkaSource.sourceProperties(parse("kafka: {bootstrap_servers: localhost:9092}\n" + routes)))
                .containsEntry("fetch.min.bytes", "65536")
                .containsEntry("fetch.max.wait.ms", "100");
        assertThat(KesKafkaSource.sourceProperties(parse(
                        "kafka: {bootstrap_servers: localhost:9092, properties: {fetch.min.bytes: '1', fetch.max.wait.ms: '500'}}\n"
                                + routes)))
                .containsEntry("fetch.min.bytes", "1")
                .containsEntry("fetch.max.wait.ms", "500");
    }
}
