package io.kes.jobs.template;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.kes.jobs.config.KesConfig;
import io.kes.jobs.config.Route;
import io.kes.jobs.preflight.CannotConnectException;
import java.net.ServerSocket;
import java.util.Map;
import org.junit.jupiter.api.Test;

class IndexTemplatesTest {

    private static Route route(String yaml) {
        return KesConfig.parse(
                        "elasticsearch: {hosts: [http://localhost:9200]}\nkafka: {bootstrap_servers: k:9092}\nroutes:\n"
                                + yaml,
                        Map.of())
                .routes
                .get(0);
    }

    @Test
    void placeholdersBecomeWildcardsOfTheTemplatePattern() {
        Route r = route(
                "  - {topics: [a], index: \"logs-{service}-{@timestamp|yyyy.MM.dd}\", index_template: {shards: 6}}");
        assertThat(IndexTemplates.pattern(r)).isEqualTo("logs-*-*");
        assertThat(IndexTemplates.name(r)).isEqualTo("kes-logs-x-x");
    }

    @Test
    void templateCarriesTheRouteSettingsWithAsyncTranslogByDefault() throws Exception {
        JsonNode body = IndexTemplates.body(route(
                "  - {topics: [a], index: orders, index_template: {shards: 6, replicas: 0, codec: best_compression}}"));
        JsonNode settings = body.path("template").path("settings");
        assertThat(body.path("index_patterns").get(0).asText()).isEqualTo("orders");
        assertThat(settings.path("number_of_shards").asInt()).isEqualTo(6);
        assertThat(settings.path("number_of_replicas").asInt()).isZero();
        assertThat(settings.path("translog.durability").asText()).isEqualTo("async");
        assertThat(settings.path("codec").asText()).isEqualTo("best_compression");
        assertThat(body.has("data_stream")).isFalse();
    }

    @Test
    void dataStreamRoutesGetADataStreamTemplate() throws Exception {
        JsonNode body =
                IndexTemplates.body(route("  - {topics: [a], data_stream: logs-app-default, index_template: {}}"));
        assertThat(body.has("data_stream")).isTrue();
        assertThat(body.path("index_patterns").get(0).asText()).isEqualTo("logs-app-default");
    }

    @Test
    void elasticsearchOutOfReachStopsAFirstStartButNotARestore() throws Exception {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        KesConfig config = KesConfig.parse(
                "elasticsearch: {hosts: [\"http://localhost:" + closed + "\"]}\nkafka: {bootstrap_servers: k:9092}\n"
                        + "routes: [{topics: [a], index: orders, index_template: {shards: 2}}]",
                Map.of());

        assertThatThrownBy(() -> IndexTemplates.apply(config, false))
                .isInstanceOf(CannotConnectException.class)
                .hasMessageContaining("check elasticsearch.hosts");
        IndexTemplates.apply(config, true); // put when the job first started; the restored job rides out the outage
    }
}
