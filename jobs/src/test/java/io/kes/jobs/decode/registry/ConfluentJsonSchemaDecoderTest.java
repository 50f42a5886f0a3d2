package io.kes.jobs.decode.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kes.jobs.config.RegistrySettings;
import io.kes.jobs.decode.DecodeException;
import io.kes.jobs.decode.avro.TestSchemaRegistry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Values as Confluent's {@code KafkaJsonSchemaSerializer} writes them: magic byte 0, the 4-byte
 * big-endian schema id, then the JSON text in UTF-8 (Confluent's "Formats, Serializers, and
 * Deserializers", wire format; {@code SchemaId.idToBytes} in confluentinc/schema-registry's
 * schema-serializer/src/main/java/io/confluent/kafka/serializers/schema/id/SchemaId.java), or the
 * bare JSON with the schema's GUID in the {@code __value_schema_id} header.
 */
class ConfluentJsonSchemaDecoderTest {

    private static final String SCHEMA = "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"title\":\"Order\","
            + "\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},\"qty\":{\"type\":\"integer\"}}}";

    private TestSchemaRegistry registry;

    @BeforeEach
    void start() throws Exception {
        registry = new TestSchemaRegistry().register(21, "JSON", SCHEMA);
    }

    @AfterEach
    void stop() {
        registry.close();
    }

    static byte[] confluent(int id, String json) {
        byte[] text = json.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(5 + text.length)
                .put((byte) 0)
                .putInt(id)
                .put(text)
                .array();
    }

    private static String errorType(Throwable e) {
        return ((DecodeException) e).errorType();
    }

    @Test
    void thePayloadIsTheDocumentAsItIs() throws Exception {
        ConfluentJsonSchemaDecoder decoder =
                ConfluentJsonSchemaDecoder.of(registry.url(), RegistrySettings.NONE, false);
        for (int i = 0; i < 3; i++) {
            String doc = "{\"id\":\"o-" + i + "\", \"qty\": " + i + "}";
            assertThat(new String(decoder.toJson(confluent(21, doc)), StandardCharsets.UTF_8))
                    .isEqualTo(doc);
        }
        assertThat(registry.requests()).isEqualTo(1);
    }

    @Test
    void keysMayBeAnyJsonValueAndTheSchemaMayBeNamedByAGuidHeader() throws Exception {
        ConfluentJsonSchemaDecoder keys = ConfluentJsonSchemaDecoder.of(registry.url(), RegistrySettings.NONE, true);
        assertThat(new String(keys.toJson(confluent(21, " \"k-1\" ")), StandardCharsets.UTF_8))
                .isEqualTo("\"k-1\"");
        UUID guid = UUID.fromString("00000000-0000-0000-0000-00000000002a");
        registry.registerGuid(guid, "JSON", SCHEMA);
        byte[] header = RegistryTestRecords.guidHeader(guid, new byte[0]);
        assertThat(new String(
                        keys.toJson("{\"id\":7}".getBytes(StandardCharsets.UTF_8), header), StandardCharsets.UTF_8))
                .isEqualTo("{\"id\":7}");
    }

    @Test
    void malformedRecordsAreDecodeExceptionsWithTheirReason() {
        ConfluentJsonSchemaDecoder decoder =
                ConfluentJsonSchemaDecoder.of(registry.url(), RegistrySettings.NONE, false);
        assertThatThrownBy(() -> decoder.toJson("{\"id\":1}".getBytes(StandardCharsets.UTF_8)))
                .hasMessage("value is not in the Confluent wire format (magic byte 0, a 4-byte schema id, JSON text) "
                        + "and has no header __value_schema_id: it starts with byte 0x7b ('{', JSON?)")
                .extracting(ConfluentJsonSchemaDecoderTest::errorType)
                .isEqualTo("not_confluent_wire_format");
        assertThatThrownBy(() -> decoder.toJson(confluent(404, "{}")))
                .hasMessageStartingWith("schema id 404 is not in the schema registry " + registry.url())
                .extracting(ConfluentJsonSchemaDecoderTest::errorType)
                .isEqualTo("unknown_schema_id");
        byte[] whole = confluent(21, "{\"id\":\"o-1\"}");
        assertThatThrownBy(() -> decoder.toJson(Arrays.copyOf(whole, whole.length - 3)))
                .hasMessageStartingWith("value of schema id 21 is not valid JSON: ")
                .extracting(ConfluentJsonSchemaDecoderTest::errorType)
                .isEqualTo("malformed_json");
        assertThatThrownBy(() -> decoder.toJson(confluent(21, "[1]")))
                .hasMessage("value of schema id 21 is not a JSON object (it starts with START_ARRAY): a document is "
                        + "a JSON object")
                .extracting(ConfluentJsonSchemaDecoderTest::errorType)
                .isEqualTo("malformed_json");
        registry.register(22, "PROTOBUF", "syntax = \"proto3\"; message A {}");
        assertThatThrownBy(() -> decoder.toJson(confluent(22, "{}")))
                .hasMessage("schema id 22 is a PROTOBUF schema; format: json-schema reads JSON Schema only")
                .extracting(ConfluentJsonSchemaDecoderTest::errorType)
                .isEqualTo("unsupported_schema");
        assertThatThrownBy(() -> decoder.toJson(new byte[] {0, 0, 0, 0, 21}))
                .hasMessage("value of schema id 21 has no JSON after its schema id")
                .extracting(ConfluentJsonSchemaDecoderTest::errorType)
                .isEqualTo("malformed_json");
    }

    @Test
    void aHeaderWithAnUnknownMagicByteIsRefused() {
        ConfluentJsonSchemaDecoder decoder =
                ConfluentJsonSchemaDecoder.of(registry.url(), RegistrySettings.NONE, false);
        assertThatThrownBy(() -> decoder.toJson("{}".getBytes(StandardCharsets.UTF_8), new byte[] {2, 0, 0, 0, 1}))
                .hasMessage("header __value_schema_id starts with byte 0x02, neither 0 (a 4-byte schema id follows) "
                        + "nor 1 (a 16-byte schema GUID)")
                .extracting(ConfluentJsonSchemaDecoderTest::errorType)
                .isEqualTo("not_confluent_wire_format");
        assertThatThrownBy(() -> decoder.toJson("{}".getBytes(StandardCharsets.UTF_8), new byte[] {1, 0, 0}))
                .hasMessage("header __value_schema_id is cut short inside its schema id (3 bytes; JSON text)")
                .extracting(ConfluentJsonSchemaDecoderTest::errorType)
                .isEqualTo("not_confluent_wire_format");
    }
}
