package io.kes.jobs.decode.registry;

import static io.kes.jobs.decode.avro.TestSchemaRegistry.reference;
import static io.kes.jobs.decode.registry.RegistryTestRecords.FIRST_MESSAGE;
import static io.kes.jobs.decode.registry.RegistryTestRecords.confluent;
import static io.kes.jobs.decode.registry.RegistryTestRecords.order;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kes.jobs.config.RegistrySettings;
import io.kes.jobs.decode.DecodeException;
import io.kes.jobs.decode.avro.TestSchemaRegistry;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ConfluentProtobufDecoderTest {

    private static final long TS = 1_795_255_200L; // 2026-11-21T10:00:00Z
    private static final String ORDER_JSON = "{\"order_id\":\"o-1\",\"quantity\":\"17\",\"status\":\"SHIPPED\","
            + "\"created\":\"2026-11-21T10:00:00Z\",\"price\":{\"currency\":\"EUR\",\"units\":\"12\"},"
            + "\"lines\":[{\"sku\":\"sku-o-1\",\"count\":2}],\"gift\":false}";

    private TestSchemaRegistry registry;

    @BeforeEach
    void start() throws Exception {
        registry = new TestSchemaRegistry()
                .registerVersion("money.proto", 1, "PROTOBUF", RegistryTestRecords.MONEY_PROTO)
                .register(
                        11,
                        "PROTOBUF",
                        RegistryTestRecords.ORDERS_PROTO,
                        reference("common/money.proto", "money.proto", 1));
    }

    @AfterEach
    void stop() {
        registry.close();
    }

    private ConfluentProtobufDecoder decoder(boolean keys) {
        return ConfluentProtobufDecoder.of(registry.url(), RegistrySettings.NONE, keys);
    }

    private static String text(byte[] json) {
        return new String(json, StandardCharsets.UTF_8);
    }

    private static String errorType(Throwable e) {
        return ((DecodeException) e).errorType();
    }

    @Test
    void theFirstMessageWithItsImportsAndWellKnownTypesBecomesProtobufsJson() throws Exception {
        ConfluentProtobufDecoder decoder = decoder(false);
        assertThat(text(decoder.toJson(confluent(11, FIRST_MESSAGE, order("o-1", 17, 1, TS, 12)))))
                .isEqualTo(ORDER_JSON);
        // defaults of fields without presence are written, as Connect's ProtobufConverter gave them
        assertThat(text(decoder.toJson(confluent(11, FIRST_MESSAGE, new byte[0]))))
                .isEqualTo("{\"order_id\":\"\",\"quantity\":\"0\",\"status\":\"NEW\",\"lines\":[],\"gift\":false}");
        // the schema and its one reference, each fetched once
        assertThat(registry.requests()).isEqualTo(2);
    }

    @Test
    void messageIndexesNameTopLevelAndNestedMessages() throws Exception {
        ConfluentProtobufDecoder decoder = decoder(false);
        byte[] customer = RegistryTestRecords.message(out -> out.writeString(1, "Ada"));
        // [1]: count 1 and index 1, each a zigzag varint: 0x02 0x02
        assertThat(text(decoder.toJson(confluent(11, new byte[] {0x02, 0x02}, customer))))
                .isEqualTo("{\"name\":\"Ada\"}");
        // [0, 0]: Order.Line, count 2 (0x04), then 0 and 0
        byte[] line = RegistryTestRecords.message(out -> {
            out.writeString(1, "s");
            out.writeInt32(2, 3);
        });
        assertThat(text(decoder.toJson(confluent(11, new byte[] {0x04, 0x00, 0x00}, line))))
                .isEqualTo("{\"sku\":\"s\",\"count\":3}");
        // the long form of [0], count 1 and index 0, is the first message too
        assertThat(text(decoder.toJson(confluent(11, new byte[] {0x02, 0x00}, order("o-1", 17, 1, TS, 12)))))
                .isEqualTo(ORDER_JSON);
        assertThatThrownBy(() -> decoder.toJson(confluent(11, new byte[] {0x02, 0x0a}, customer)))
                .hasMessage("value's message indexes [5] name no message of schema id 11")
                .extracting(ConfluentProtobufDecoderTest::errorType)
                .isEqualTo("protobuf_mismatch");
    }

    @Test
    void aSchemaGuidInTheHeaderNamesTheSchemaOfABareMessage() throws Exception {
        UUID guid = UUID.fromString("6f1c2a4e-0d3b-4c55-9a1e-2b7c8d9e0f10");
        registry.registerGuid(guid, "PROTOBUF", "syntax = \"proto3\"; message Ping { int32 n = 1; }");
        byte[] header = RegistryTestRecords.guidHeader(guid, FIRST_MESSAGE);
        assertThat(header).hasSize(18).startsWith(1, 0x6f, 0x1c);
        byte[] ping = RegistryTestRecords.message(out -> out.writeInt32(1, 5));
        assertThat(text(decoder(false).toJson(ping, header))).isEqualTo("{\"n\":5}");
        assertThat(text(decoder(true).toJson(ping, header))).isEqualTo("{\"n\":5}");
    }

    @Test
    void malformedRecordsAreDecodeExceptionsWithTheirReason() {
        ConfluentProtobufDecoder decoder = decoder(false);
        assertThatThrownBy(() -> decoder.toJson("{\"id\":1}".getBytes(StandardCharsets.UTF_8)))
                .hasMessage("value is not in the Confluent wire format (magic byte 0, a 4-byte schema id, message "
                        + "indexes, a Protobuf message) and has no header __value_schema_id: it starts with byte "
                        + "0x7b ('{', JSON?)")
                .extracting(ConfluentProtobufDecoderTest::errorType)
                .isEqualTo("not_confluent_wire_format");
        assertThatThrownBy(() -> decoder.toJson(confluent(99, FIRST_MESSAGE, order("o", 1, 0, TS, 1))))
                .hasMessageStartingWith("schema id 99 is not in the schema registry " + registry.url())
                .extracting(ConfluentProtobufDecoderTest::errorType)
                .isEqualTo("unknown_schema_id");
        byte[] whole = confluent(11, FIRST_MESSAGE, order("o-1", 17, 1, TS, 12));
        assertThatThrownBy(() -> decoder.toJson(Arrays.copyOf(whole, whole.length - 4)))
                .hasMessageStartingWith("value is not a io.kes.test.Order message of schema id 11: ")
                .extracting(ConfluentProtobufDecoderTest::errorType)
                .isEqualTo("protobuf_mismatch");
        // the message indexes cut short
        assertThatThrownBy(() -> decoder.toJson(new byte[] {0, 0, 0, 0, 11, 0x04, (byte) 0x80, (byte) 0x80}))
                .hasMessage("value is cut short inside its schema id or message indexes (8 bytes; message indexes, a "
                        + "Protobuf message)")
                .extracting(ConfluentProtobufDecoderTest::errorType)
                .isEqualTo("not_confluent_wire_format");
        assertThatThrownBy(() -> decoder.toJson(new byte[] {0, 0, 0, 0, 11, 0x04, 0x00}))
                .hasMessage("value's Protobuf message indexes count 2 entries, and only 1 bytes follow")
                .extracting(ConfluentProtobufDecoderTest::errorType)
                .isEqualTo("not_confluent_wire_format");
        registry.register(12, "{\"type\":\"record\",\"name\":\"A\",\"fields\":[]}");
        assertThatThrownBy(() -> decoder.toJson(confluent(12, FIRST_MESSAGE, new byte[0])))
                .hasMessage("schema id 12 is a AVRO schema; format: protobuf reads Protobuf only")
                .extracting(ConfluentProtobufDecoderTest::errorType)
                .isEqualTo("unsupported_schema");
        registry.register(13, "PROTOBUF", "syntax = \"proto3\"; message Broken { Missing m = 1; }");
        assertThatThrownBy(() -> decoder.toJson(confluent(13, FIRST_MESSAGE, new byte[0])))
                .hasMessageStartingWith("schema id 13 from " + registry.url() + " is not a usable .proto schema: ")
                .extracting(ConfluentProtobufDecoderTest::errorType)
                .isEqualTo("unsupported_schema");
    }
}
