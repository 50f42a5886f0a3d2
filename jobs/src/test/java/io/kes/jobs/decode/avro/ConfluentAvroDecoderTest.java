package io.kes.jobs.decode.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kes.jobs.decode.DecodeException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ConfluentAvroDecoderTest {

    private static final long TS = Instant.parse("2026-11-21T10:00:00Z").toEpochMilli();

    private TestSchemaRegistry registry;

    @BeforeEach
    void start() throws Exception {
        registry = new TestSchemaRegistry().register(7, AvroTestData.ORDER_SCHEMA);
    }

    @AfterEach
    void stop() {
        registry.close();
    }

    private static String errorType(Throwable e) {
        return ((DecodeException) e).errorType();
    }

    @Test
    void schemasComeFromTheRegistryOncePerId() throws Exception {
        ConfluentAvroDecoder decoder = new ConfluentAvroDecoder(registry.url() + "/");
        for (int i = 0; i < 3; i++) {
            byte[] json =
                    decoder.toJson(AvroTestData.confluent(7, AvroTestData.order("o-" + i, i, "NEW", "n" + i, TS)));
            assertThat(new String(json, StandardCharsets.UTF_8))
                    .isEqualTo("{\"id\":\"o-" + i + "\",\"amount\":" + (double) i + ",\"status\":\"NEW\",\"note\":\"n"
                            + i + "\",\"ts\":\"2026-11-21T10:00:00Z\"}");
        }
        assertThat(registry.requests()).isEqualTo(1);
    }

    @Test
    void valuesWithoutTheMagicByteAreNotConfluentWireFormat() {
        ConfluentAvroDecoder decoder = new ConfluentAvroDecoder(registry.url());
        assertThatThrownBy(() -> decoder.toJson("{\"id\":1}".getBytes(StandardCharsets.UTF_8)))
                .hasMessage(
                        "value is not in the Confluent wire format (magic byte 0, a 4-byte schema id, Avro binary) and has "
                                + "no header __value_schema_id: "
                                + "it starts with byte 0x7b ('{', JSON?)")
                .extracting(ConfluentAvroDecoderTest::errorType)
                .isEqualTo("not_confluent_wire_format");
        assertThatThrownBy(() -> decoder.toJson(new byte[] {0, 0, 1}))
                .hasMessageEndingWith("it has only 3 bytes")
                .extracting(ConfluentAvroDecoderTest::errorType)
                .isEqualTo("not_confluent_wire_format");
        assertThat(registry.requests()).isZero();
    }

    @Test
    void idsTheRegistryDoesNotKnowAreUnknownSchemaIds() {
        ConfluentAvroDecoder decoder = new ConfluentAvroDecoder(registry.url());
        assertThatThrownBy(
                        () -> decoder.toJson(AvroTestData.confluent(99, AvroTestData.order("o", 1, "NEW", null, TS))))
                .hasMessage("schema id 99 is not in the schema registry " + registry.url()
                        + " ({\"error_code\":40403,\"message\":\"Schema not found\"})")
                .extracting(ConfluentAvroDecoderTest::errorType)
                .isEqualTo("unknown_schema_id");
    }

    @Test
    void bytesThatDoNotMatchTheRegisteredSchemaAreAnAvroMismatch() {
        ConfluentAvroDecoder decoder = new ConfluentAvroDecoder(registry.url());
        byte[] good = AvroTestData.confluent(7, AvroTestData.order("o", 1, "NEW", null, TS));
        byte[] trailing = java.util.Arrays.copyOf(good, good.length + 2);
        assertThatThrownBy(() -> decoder.toJson(trailing))
                .hasMessage(
                        "value does not match the Avro schema io.kes.test.Order (schema id 7): it has 2 bytes left over after "
                                + "the record (of " + (trailing.length - 5) + ")")
                .extracting(ConfluentAvroDecoderTest::errorType)
                .isEqualTo("avro_mismatch");
    }

    @Test
    void schemasThatAreNotRecordsAreUnsupported() {
        registry.register(8, "\"string\"");
        ConfluentAvroDecoder decoder = new ConfluentAvroDecoder(registry.url());
        assertThatThrownBy(() -> decoder.toJson(AvroTestData.confluent(8, new byte[] {2, 'a'})))
                .hasMessage("schema id 8 from " + registry.url()
                        + " cannot be used: the schema must be a record (documents are JSON objects), got a string")
                .extracting(ConfluentAvroDecoderTest::errorType)
                .isEqualTo("unsupported_schema");
    }

    @Test
    void anUnreachableRegistryFailsTheJobInsteadOfDeadLetteringRecords() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        ConfluentAvroDecoder down = new ConfluentAvroDecoder("http://127.0.0.1:" + port, 3, Duration.ofMillis(10));
        assertThatThrownBy(() -> down.toJson(AvroTestData.confluent(7, AvroTestData.order("o", 1, "NEW", null, TS))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("schema_registry_unreachable: the schema registry at http://127.0.0.1:" + port
                        + " did not answer GET http://127.0.0.1:" + port
                        + "/schemas/ids/7 after 3 attempts (last: ConnectException");

        registry.failWith(503);
        ConfluentAvroDecoder failing = new ConfluentAvroDecoder(registry.url(), 3, Duration.ofMillis(10));
        assertThatThrownBy(() -> failing.toJson(AvroTestData.confluent(7, AvroTestData.order("o", 1, "NEW", null, TS))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("after 3 attempts (last: HTTP 503 ");
        assertThat(registry.requests()).isEqualTo(3);

        registry.failWith(401);
        assertThatThrownBy(() -> failing.toJson(AvroTestData.confluent(7, AvroTestData.order("o", 1, "NEW", null, TS))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith(
                        "the schema registry answered GET " + registry.url() + "/schemas/ids/7 with HTTP 401");

        registry.failWith(0);
        assertThat(failing.toJson(AvroTestData.confluent(7, AvroTestData.order("o", 1, "NEW", null, TS))))
                .isNotEmpty();
    }

    @Test
    void namedTypesFromReferencesAndSchemaGuidsInHeadersAreRead() throws Exception {
        String money = "{\"type\":\"record\",\"name\":\"Money\",\"namespace\":\"io.kes.common\","
                + "\"fields\":[{\"name\":\"currency\",\"type\":\"string\"},{\"name\":\"units\",\"type\":\"long\"}]}";
        String priced = "{\"type\":\"record\",\"name\":\"Priced\",\"namespace\":\"io.kes.test\","
                + "\"fields\":[{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"price\",\"type\":\"io.kes.common.Money\"}]}";
        registry.registerVersion("money-value", 3, "AVRO", money)
                .register(30, "AVRO", priced, TestSchemaRegistry.reference("io.kes.common.Money", "money-value", 3));
        org.apache.avro.Schema.Parser parser = new org.apache.avro.Schema.Parser();
        parser.parse(money);
        org.apache.avro.Schema schema = parser.parse(priced);
        org.apache.avro.generic.GenericRecord price = new org.apache.avro.generic.GenericData.Record(
                schema.getField("price").schema());
        price.put("currency", "EUR");
        price.put("units", 12L);
        org.apache.avro.generic.GenericRecord record = new org.apache.avro.generic.GenericData.Record(schema);
        record.put("id", "p-1");
        record.put("price", price);
        byte[] avro = AvroTestData.write(schema, record);
        ConfluentAvroDecoder decoder = new ConfluentAvroDecoder(registry.url());
        String json = "{\"id\":\"p-1\",\"price\":{\"currency\":\"EUR\",\"units\":12}}";
        assertThat(new String(decoder.toJson(AvroTestData.confluent(30, avro)), StandardCharsets.UTF_8))
                .isEqualTo(json);

        // HeaderSchemaIdSerializer: the value is bare Avro binary, the header magic byte 1 and the GUID
        java.util.UUID guid = java.util.UUID.fromString("9b2f0c1e-5a6d-4e7f-8091-a2b3c4d5e6f7");
        registry.registerGuid(guid, "AVRO", AvroTestData.ORDER_SCHEMA);
        byte[] header = java.nio.ByteBuffer.allocate(17)
                .put((byte) 1)
                .putLong(guid.getMostSignificantBits())
                .putLong(guid.getLeastSignificantBits())
                .array();
        assertThat(new String(
                        decoder.toJson(AvroTestData.order("o-1", 1, "NEW", null, TS), header), StandardCharsets.UTF_8))
                .startsWith("{\"id\":\"o-1\",");
        assertThatThrownBy(() -> decoder.toJson(AvroTestData.order("o-1", 1, "NEW", null, TS), new byte[] {1, 2}))
                .extracting(ConfluentAvroDecoderTest::errorType)
                .isEqualTo("not_confluent_wire_format");
    }
}
