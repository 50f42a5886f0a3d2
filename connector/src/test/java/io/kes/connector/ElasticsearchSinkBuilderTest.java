package io.kes.connector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.apache.flink.configuration.MemorySize;
import org.junit.jupiter.api.Test;

class ElasticsearchSinkBuilderTest {

    @Test
    void defaultsAreSingleShardBulksOfAboutOneMegabyte() {
        SinkSettings s = ElasticsearchSink.builder()
                .setHosts("http://localhost:9200")
                .build()
                .settings();
        assertThat(s.shardGrouping()).isTrue();
        assertThat(s.maxBytes()).isEqualTo(1024 * 1024);
        assertThat(s.maxDocs()).isEqualTo(1000);
        assertThat(s.maxInFlight()).isEqualTo(4);
    }

    @Test
    void missingHostsSayWhatToSet() {
        assertThatThrownBy(() -> ElasticsearchSink.builder().build())
                .hasMessage(
                        "elasticsearch.hosts is not set: give at least one Elasticsearch URL, e.g. http://localhost:9200");
    }

    @Test
    void hostWithoutSchemeIsRejectedWithAnExample() {
        assertThatThrownBy(() ->
                        ElasticsearchSink.builder().setHosts("localhost:9200").build())
                .hasMessage(
                        "elasticsearch.hosts entry 'localhost:9200' must look like http://host:9200 or https://host:9200");
    }

    @Test
    void passwordWithoutUserIsRejected() {
        assertThatThrownBy(() -> ElasticsearchSink.builder()
                        .setHosts("http://h:9200")
                        .set(ElasticsearchSinkOptions.PASSWORD, "secret")
                        .build())
                .hasMessage("elasticsearch.password is set but elasticsearch.username is not");
    }

    @Test
    void bulkLimitsOutsideWhatElasticsearchAcceptsAreRejected() {
        assertThatThrownBy(() -> ElasticsearchSink.builder()
                        .setHosts("http://h:9200")
                        .setBulkMaxBytes(MemorySize.parse("200mb"))
                        .build())
                .hasMessageContaining(
                        "bulk.max_bytes must be at most 100mb (Elasticsearch's default http.max_content_length), got 200 mb");
        assertThatThrownBy(() -> ElasticsearchSink.builder()
                        .setHosts("http://h:9200")
                        .setMaxInFlight(0)
                        .build())
                .hasMessage("bulk.max_in_flight must be at least 1, got 0");
    }

    @Test
    void retryBackoffMustNotShrink() {
        assertThatThrownBy(() -> ElasticsearchSink.builder()
                        .setHosts("http://h:9200")
                        .setRetry(Duration.ofSeconds(5), Duration.ofSeconds(1), Duration.ofMinutes(1))
                        .build())
                .hasMessage("retry.max_backoff (PT1S) must not be shorter than retry.initial_backoff (PT5S)");
    }
}
