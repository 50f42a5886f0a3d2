package io.kes.jobs.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The route keys for Connect's formats, keys, upserts with deletes and change events, and how they combine. */
class RouteFormatsConfigTest {

    private static Route route(String route) {
        return KesConfig.parse(
                        "elasticsearch: {hosts: [http://localhost:9200]}\nkafka: {bootstrap_servers: localhost:9092}\n"
                                + "routes:\n  - {topics: [t], index: i, " + route + "}",
                        Map.of())
                .routes
                .get(0);
    }

    @Test
    void theFormatsAndTheirSettingsAreRead() {
        assertThat(route("format: string").format())
                .isEqualTo(new Route.ValueFormat(Route.ValueFormat.Kind.STRING, null, null, "message"));
        assertThat(route("format: string, string_field: log").format().stringField())
                .isEqualTo("log");
        assertThat(route("format: connect-json").format().kind()).isEqualTo(Route.ValueFormat.Kind.CONNECT_JSON);
        assertThat(route("id: key").keyFormat()).isEqualTo(Route.KeyFormat.STRING);
        assertThat(route("id: key, key_format: confluent-avro, schema_registry_url: http://r:8081")
                        .keyFormat())
                .isEqualTo(new Route.KeyFormat(Route.KeyFormat.Kind.CONFLUENT_AVRO, "http://r:8081"));
        Route cdc = route("cdc: debezium, key_format: json, id: {key_field: id}");
        assertThat(cdc.cdc()).isEqualTo(Route.Cdc.DEBEZIUM);
        assertThat(cdc.id()).isEqualTo(new Route.IdSpec(Route.IdSpec.Kind.KEY_FIELD, java.util.List.of("id")));
        assertThat(route("id: key, op: upsert-delete-on-tombstone").op())
                .isEqualTo(Route.Op.UPSERT_DELETE_ON_TOMBSTONE);
    }

    static Stream<Arguments> combinationsThatCannotWork() {
        return Stream.of(
                Arguments.of(
                        "format: json, string_field: log", "routes[0].string_field only applies to format: string"),
                Arguments.of("key_format: json", "routes[0].key_format only applies to ids made from record keys"),
                Arguments.of("id: {key_field: id}", "needs keys with fields: set key_format"),
                Arguments.of("id: key, key_format: confluent-avro", "routes[0].schema_registry_url is"),
                Arguments.of(
                        "op: upsert-delete-on-tombstone",
                        "routes[0].id must be key or {key_field: ...} with op " + "upsert-delete-on-tombstone"),
                Arguments.of(
                        "id: key, op: upsert-delete-on-tombstone, version: kafka-offset",
                        "versions no op upsert-delete-on-tombstone"),
                Arguments.of("id: key, op: upsert-delete-on-tombstone, pipeline: p", "cannot be used with op upsert"),
                Arguments.of("cdc: debezium", "routes[0].id must be key or {key_field: <column>} with cdc"),
                Arguments.of("cdc: debezium, id: key, op: index", "routes[0].op cannot be set with cdc"),
                Arguments.of("cdc: debezium, id: key, routing: r", "routes[0].routing cannot be used with cdc"),
                Arguments.of("cdc: maxwell", "routes[0].cdc must be one of"),
                Arguments.of("format: protobuf", "routes[0].schema_registry_url is required"),
                Arguments.of("format: json-schema", "routes[0].schema_registry_url is required"),
                Arguments.of("format: thrift", "routes[0].format must be one of"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void combinationsThatCannotWork(String route, String problem) {
        assertThatThrownBy(() -> route(route))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(problem);
    }
}
