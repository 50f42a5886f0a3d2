package io.kes.jobs.decode.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kes.connector.DocumentOperation;
import io.kes.jobs.config.ConfigException;
import io.kes.jobs.config.KesConfig;
import io.kes.jobs.config.Route;
import io.kes.jobs.decode.DecodeException;
import io.kes.jobs.decode.DocumentBuilder;
import io.kes.jobs.decode.KafkaRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Avro routes: their config keys with exact messages, and the documents they make. */
class AvroConfigTest {

    private static final long TS = Instant.parse("2026-11-21T10:00:00Z").toEpochMilli();

    @TempDir
    Path dir;

    private static KesConfig parse(String route) {
        return KesConfig.parse(
                "elasticsearch: {hosts: [http://localhost:9200]}\n"
                        + "kafka: {bootstrap_servers: localhost:9092}\nroutes:\n  - " + route,
                Map.of());
    }

    private Path schemaFile(String json) throws Exception {
        Path file = dir.resolve("order.avsc");
        Files.writeString(file, json);
        return file;
    }

    private static KafkaRecord record(String key, byte[] value) {
        return new KafkaRecord(
                "orders", 0, 3, TS, key == null ? null : key.getBytes(StandardCharsets.UTF_8), value, List.of());
    }

    @Test
    void jsonIsTheDefaultFormat() {
        assertThat(parse("{topics: [orders], index: orders}").routes.get(0).format())
                .isEqualTo(Route.ValueFormat.JSON);
        assertThat(parse("{topics: [orders], index: orders, format: json}")
                        .routes
                        .get(0)
                        .format())
                .isEqualTo(Route.ValueFormat.JSON);
    }

    @Test
    void avroReadsTheSchemaFileWhenTheConfigIsLoaded() throws Exception {
        Path file = schemaFile(AvroTestData.ORDER_SCHEMA);
        Route route = parse("{topics: [orders], index: orders, format: avro, avro_schema_file: " + file + "}")
                .routes
                .get(0);
        assertThat(route.format())
                .isEqualTo(new Route.ValueFormat(Route.ValueFormat.Kind.AVRO, AvroTestData.ORDER_SCHEMA, null));
    }

    @Test
    void avroConfigErrorsNameTheKeyAndTheFix() throws Exception {
        assertThatThrownBy(() -> parse("{topics: [orders], index: orders, format: avro}"))
                .isInstanceOf(ConfigException.class)
                .hasMessage(
                        "routes[0].avro_schema_file is required, e.g. avro_schema_file: schemas/order.avsc (the writer schema of the values)");
        Path missing = dir.resolve("nope.avsc");
        assertThatThrownBy(() ->
                        parse("{topics: [orders], index: orders, format: avro, avro_schema_file: " + missing + "}"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("routes[0].avro_schema_file " + missing
                        + " cannot be read: java.nio.file.NoSuchFileException: " + missing);
        Path broken = schemaFile(
                "{\"type\": \"record\", \"name\": \"Order\", \"fields\": [{\"name\": \"id\", \"type\": \"strin\"}]}");
        assertThatThrownBy(() ->
                        parse("{topics: [orders], index: orders, format: avro, avro_schema_file: " + broken + "}"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("routes[0].avro_schema_file " + broken
                        + " is not a valid Avro schema: Undefined schema: strin");
        Path primitive = schemaFile("\"string\"");
        assertThatThrownBy(() ->
                        parse("{topics: [orders], index: orders, format: avro, avro_schema_file: " + primitive + "}"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("routes[0].avro_schema_file " + primitive
                        + " must define a record (documents are JSON objects), got a string");
        assertThatThrownBy(() -> parse("{topics: [orders], index: orders, avro_schema_file: " + primitive + "}"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("routes[0].avro_schema_file only applies to format: avro (this route's format is json)");
        assertThatThrownBy(() -> parse("{topics: [orders], index: orders, format: thrift}"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("routes[0].format must be one of ")
                .hasMessageContaining("got 'thrift'");
    }

    @Test
    void confluentAvroNeedsAnHttpRegistryUrl() {
        Route route = parse(
                        "{topics: [orders], index: orders, format: confluent-avro, schema_registry_url: \"http://registry:8081\"}")
                .routes
                .get(0);
        assertThat(route.format())
                .isEqualTo(new Route.ValueFormat(Route.ValueFormat.Kind.CONFLUENT_AVRO, null, "http://registry:8081"));
        assertThatThrownBy(() -> parse("{topics: [orders], index: orders, format: confluent-avro}"))
                .isInstanceOf(ConfigException.class)
                .hasMessage(
                        "routes[0].schema_registry_url is required, e.g. schema_registry_url: http://registry:8081");
        assertThatThrownBy(
                        () -> parse(
                                "{topics: [orders], index: orders, format: confluent-avro, schema_registry_url: \"registry:8081\"}"))
                .isInstanceOf(ConfigException.class)
                .hasMessage(
                        "routes[0].schema_registry_url 'registry:8081' must be an http:// or https:// URL, e.g. http://registry:8081 "
                                + "(several: comma-separated)");
        assertThatThrownBy(() -> parse(
                        "{topics: [orders], index: orders, format: avro, schema_registry_url: \"http://r:8081\"}"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("routes[0].schema_registry_url only applies to a format or key_format that reads a schema "
                        + "registry (confluent-avro, protobuf, json-schema; this route's format is avro)");
    }

    @Test
    void avroValuesBecomeJsonDocumentsAndKeepTheirBytesForDeadLetters() throws Exception {
        Path file = schemaFile(AvroTestData.ORDER_SCHEMA);
        byte[] avro = AvroTestData.order("o-9", 3.5, "SHIPPED", null, TS);

        DocumentBuilder plain = new DocumentBuilder(
                parse("{topics: [orders], index: orders, format: avro, avro_schema_file: " + file + "}")
                        .routes
                        .get(0));
        DocumentOperation op = plain.build(record("k", avro));
        assertThat(new String(op.source(), StandardCharsets.UTF_8))
                .isEqualTo(
                        "{\"id\":\"o-9\",\"amount\":3.5,\"status\":\"SHIPPED\",\"note\":null,\"ts\":\"2026-11-21T10:00:00Z\"}");
        assertThat(op.origin().originalValue()).isEqualTo(avro);
        assertThat(op.origin().originalKey()).isEqualTo("k".getBytes(StandardCharsets.UTF_8));

        DocumentBuilder fields = new DocumentBuilder(
                parse("{topics: [orders], index: \"orders-{status}-{ts|yyyy.MM}\", id: {field: id}, "
                                + "timestamp_field: ts, format: avro, avro_schema_file: " + file + "}")
                        .routes
                        .get(0));
        op = fields.build(record(null, avro));
        assertThat(op.index()).isEqualTo("orders-shipped-2026.11");
        assertThat(op.id()).isEqualTo("o-9");
        assertThat(op.origin().originalValue()).isEqualTo(avro);

        DocumentBuilder renamed = new DocumentBuilder(
                parse("{topics: [orders], index: orders, exclude: [note], rename: {ts: \"@timestamp\"}, "
                                + "format: avro, avro_schema_file: " + file + "}")
                        .routes
                        .get(0));
        assertThat(new String(renamed.build(record(null, avro)).source(), StandardCharsets.UTF_8))
                .isEqualTo(
                        "{\"id\":\"o-9\",\"amount\":3.5,\"status\":\"SHIPPED\",\"@timestamp\":\"2026-11-21T10:00:00Z\"}");

        assertThatThrownBy(() -> plain.build(record(null, "{\"id\":\"o-1\"}".getBytes(StandardCharsets.UTF_8))))
                .isInstanceOf(DecodeException.class)
                .extracting(e -> ((DecodeException) e).errorType())
                .isEqualTo("avro_mismatch");
    }
}
