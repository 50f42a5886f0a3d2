package io.kes.jobs.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kes.connector.DocumentOperation;
import io.kes.connector.OpType;
import io.kes.jobs.config.KesConfig;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The values Kafka Connect's converters write (its JSON envelope, plain strings) as documents. */
class ConnectFormatsTest {

    static DocumentBuilder builder(String routeYaml) {
        KesConfig config = KesConfig.parse(
                "elasticsearch: {hosts: [http://localhost:9200]}\n"
                        + "kafka: {bootstrap_servers: localhost:9092}\nroutes:\n  - " + routeYaml,
                Map.of());
        return new DocumentBuilder(config.routes.get(0));
    }

    static KafkaRecord record(byte[] key, byte[] value) {
        return new KafkaRecord("orders", 0, 7, 0L, key, value, List.of());
    }

    static byte[] utf8(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    static final String ORDER_SCHEMA = "{\"type\":\"struct\",\"fields\":[{\"field\":\"id\",\"type\":\"int64\"},"
            + "{\"field\":\"name\",\"type\":\"string\",\"optional\":true}]}";

    static Stream<Arguments> valuesAndTheirDocuments() {
        return Stream.of(
                Arguments.of("json", "{\"id\":1,\"name\":\"a\"}", "{\"id\":1,\"name\":\"a\"}"),
                Arguments.of(
                        "connect-json",
                        "{\"schema\":" + ORDER_SCHEMA + ",\"payload\":{\"id\":1,\"name\":\"a\"}}",
                        "{\"id\":1,\"name\":\"a\"}"),
                Arguments.of("connect-json", "{\"schema\":null,\"payload\":{\"id\":1}}", "{\"id\":1}"),
                // Connect's logical types, rendered as kes renders Avro's: exact decimals, ISO-8601 times
                Arguments.of(
                        "connect-json",
                        "{\"schema\":{\"type\":\"struct\",\"fields\":["
                                + "{\"field\":\"price\",\"type\":\"bytes\",\"name\":\"org.apache.kafka.connect.data.Decimal\","
                                + "\"parameters\":{\"scale\":\"2\",\"connect.decimal.precision\":\"10\"}},"
                                + "{\"field\":\"big\",\"type\":\"bytes\",\"name\":\"org.apache.kafka.connect.data.Decimal\","
                                + "\"parameters\":{\"scale\":\"1\",\"connect.decimal.precision\":\"30\"}},"
                                + "{\"field\":\"at\",\"type\":\"int64\",\"name\":\"org.apache.kafka.connect.data.Timestamp\"},"
                                + "{\"field\":\"day\",\"type\":\"int32\",\"name\":\"org.apache.kafka.connect.data.Date\"},"
                                + "{\"field\":\"tod\",\"type\":\"int32\",\"name\":\"org.apache.kafka.connect.data.Time\"},"
                                + "{\"field\":\"tags\",\"type\":\"array\",\"items\":{\"type\":\"int32\","
                                + "\"name\":\"org.apache.kafka.connect.data.Date\"}}]},"
                                + "\"payload\":{\"price\":\"MDk=\",\"big\":\"AQ==\",\"at\":1700000000123,\"day\":19000,"
                                + "\"tod\":3723004,\"tags\":[0]}}",
                        "{\"price\":123.45,\"big\":\"0.1\",\"at\":\"2023-11-14T22:13:20.123Z\",\"day\":\"2022-01-08\","
                                + "\"tod\":\"01:02:03.004\",\"tags\":[\"1970-01-01\"]}"),
                Arguments.of("string", "GET /index.html 200", "{\"message\":\"GET /index.html 200\"}"),
                Arguments.of(
                        "string, string_field: log",
                        "{\"not\":\"parsed\"}",
                        "{\"log\":\"{\\\"not\\\":\\\"parsed\\\"}\"}"));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource
    void valuesAndTheirDocuments(String format, String value, String document) throws Exception {
        DocumentOperation op =
                builder("{topics: [orders], index: o, format: " + format + "}").build(record(null, utf8(value)));
        assertThat(op.opType()).isEqualTo(OpType.INDEX);
        assertThat(new String(op.source(), StandardCharsets.UTF_8)).isEqualTo(document);
    }

    static Stream<Arguments> malformedValuesAndWhy() {
        return Stream.of(
                Arguments.of("connect-json", utf8("{\"id\":1}"), "not_connect_envelope", "schemas.enable"),
                Arguments.of(
                        "connect-json",
                        utf8("{\"schema\":null,\"payload\":{},\"extra\":1}"),
                        "not_connect_envelope",
                        "extra"),
                Arguments.of(
                        "connect-json",
                        utf8("{\"schema\":{\"type\":\"struct\"},\"payl"),
                        "malformed_json",
                        "valid JSON"),
                Arguments.of(
                        "connect-json",
                        utf8("{\"schema\":{\"type\":\"string\"},\"payload\":\"x\"}"),
                        "malformed_json",
                        "JSON object"),
                Arguments.of(
                        "connect-json",
                        utf8("{\"schema\":{\"type\":\"struct\",\"fields\":[{\"field\":\"p\",\"type\":\"bytes\","
                                + "\"name\":\"org.apache.kafka.connect.data.Decimal\",\"parameters\":{\"scale\":\"2\"}}]},"
                                + "\"payload\":{\"p\":\"not base64!\"}}"),
                        "connect_schema_mismatch",
                        "p"),
                Arguments.of("string", new byte[] {'a', (byte) 0xff}, "not_utf8", "UTF-8"));
    }

    @ParameterizedTest(name = "{0}: {2}")
    @MethodSource
    void malformedValuesAndWhy(String format, byte[] value, String errorType, String messagePart) {
        assertThatThrownBy(() -> builder("{topics: [orders], index: o, format: " + format + "}")
                        .build(record(null, value)))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining(messagePart)
                .satisfies(e -> assertThat(((DecodeException) e).errorType()).isEqualTo(errorType));
    }

    /** Connect reads an envelope whose payload is null as a null value: with deletes configured, a tombstone. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("deletingOps")
    void anEnvelopeWithANullPayloadIsATombstone(String op) throws Exception {
        DocumentOperation delete = builder(
                        "{topics: [orders], index: o, id: key, format: connect-json, op: " + op + "}")
                .build(record(utf8("k1"), utf8("{\"schema\":null,\"payload\":null}")));
        assertThat(delete.opType()).isEqualTo(OpType.DELETE);
        assertThat(delete.id()).isEqualTo("k1");
    }

    static Stream<String> deletingOps() {
        return Stream.of("delete-on-tombstone", "upsert-delete-on-tombstone");
    }
}
