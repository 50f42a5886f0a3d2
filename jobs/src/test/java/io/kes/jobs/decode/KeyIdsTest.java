package io.kes.jobs.decode;

import static io.kes.jobs.decode.ConnectFormatsTest.builder;
import static io.kes.jobs.decode.ConnectFormatsTest.record;
import static io.kes.jobs.decode.ConnectFormatsTest.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kes.jobs.decode.avro.AvroTestData;
import io.kes.jobs.decode.avro.TestSchemaRegistry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Keys of every format Connect writes become ids: one canonical text per key, never one id for two keys. */
class KeyIdsTest {

    static Stream<Arguments> keysAndTheirIds() {
        String intSchema = "{\"type\":\"int64\"}";
        String struct = "{\"type\":\"struct\",\"fields\":[{\"field\":\"id\",\"type\":\"int64\"}]}";
        return Stream.of(
                // key_format, id, key, expected id
                Arguments.of("string", "key", "order-17", "order-17"),
                Arguments.of("string", "key", "\"order-17\"", "\"order-17\""), // the bytes as text, as before
                Arguments.of("json", "key", "\"order-17\"", "order-17"), // Connect's id for a JSON string key
                Arguments.of("json", "key", "42", "42"), // and for an integer
                Arguments.of("json", "key", "\"42\"", "\"42\""), // a string that reads as JSON keeps its quotes
                Arguments.of("json", "key", "\"true\"", "\"true\""),
                Arguments.of("json", "key", "true", "true"),
                Arguments.of("json", "key", "1.50", "1.5"),
                Arguments.of("json", "key", "1.0", "1.0"), // not 1: a float is not the integer
                Arguments.of("json", "key", "{ \"b\": 2, \"a\": [1, \"x\"] }", "{\"a\":[1,\"x\"],\"b\":2}"),
                Arguments.of("json", "key", "\"{\\\"a\\\":1}\"", "\"{\\\"a\\\":1}\""),
                Arguments.of("json", "{key_field: id}", "{\"id\":42,\"tenant\":\"t\"}", "42"),
                Arguments.of("json", "{key_field: id}", "{\"id\":\"a-1\"}", "a-1"),
                Arguments.of("connect-json", "key", "{\"schema\":" + intSchema + ",\"payload\":42}", "42"),
                Arguments.of("connect-json", "key", "{\"schema\":{\"type\":\"string\"},\"payload\":\"k1\"}", "k1"),
                Arguments.of(
                        "connect-json", "{key_field: id}", "{\"schema\":" + struct + ",\"payload\":{\"id\":9}}", "9"),
                Arguments.of(
                        "connect-json", "key", "{\"schema\":" + struct + ",\"payload\":{\"id\":9}}", "{\"id\":9}"));
    }

    @ParameterizedTest(name = "{0} {1}: {2} -> {3}")
    @MethodSource
    void keysAndTheirIds(String keyFormat, String id, String key, String expected) throws Exception {
        String keyFormatYaml = keyFormat.equals("string") ? "" : ", key_format: " + keyFormat;
        assertThat(builder("{topics: [orders], index: o, id: " + id + keyFormatYaml + "}")
                        .build(record(utf8(key), utf8("{}")))
                        .id())
                .isEqualTo(expected);
    }

    /** Keys that differ, as JSON values, where a plain rendering would give them one id. */
    @Test
    void differentJsonKeysNeverShareAnId() throws Exception {
        List<String> keys = List.of(
                "42",
                "\"42\"",
                "\"\\\"42\\\"\"",
                "42.0",
                "\"42.0\"",
                "true",
                "\"true\"",
                "null",
                "\"null\"",
                "\"x\"",
                "\"\\\"x\\\"\"",
                "{\"a\":1}",
                "\"{\\\"a\\\":1}\"",
                "[1]",
                "\"[1]\"",
                "\" 42\"",
                "\"42 \"",
                "{\"a\":\"1\"}",
                "{\"a\":1.0}",
                "\"007\"",
                "-1",
                "\"-1\"",
                "{}",
                "\"{}\"",
                "[]",
                "\"\\u00e9\"");
        DocumentBuilder b = builder("{topics: [orders], index: o, id: key, key_format: json}");
        Map<String, String> keyById = new HashMap<>();
        for (String key : keys) {
            if (key.equals("null")) {
                continue; // a JSON null key names no document: see aNullOrEmptyKeyIsNoId
            }
            String id = b.build(record(utf8(key), utf8("{}"))).id();
            assertThat(keyById.put(id, key))
                    .as("key %s gives the id %s of another key", key, id)
                    .isNull();
        }
    }

    @Test
    void equalJsonValuesWrittenDifferentlyShareTheirId() throws Exception {
        DocumentBuilder b = builder("{topics: [orders], index: o, id: key, key_format: json}");
        assertThat(b.build(record(utf8("{\"a\":1,\"b\":[true]}"), utf8("{}"))).id())
                .isEqualTo(b.build(record(utf8(" {\"b\" : [ true ], \"a\":1}"), utf8("{}")))
                        .id());
    }

    @Test
    void aNullOrEmptyKeyIsNoId() {
        DocumentBuilder b = builder("{topics: [orders], index: o, id: key, key_format: json}");
        for (String key : new String[] {"null", "\"\""}) {
            assertThatThrownBy(() -> b.build(record(utf8(key), utf8("{}"))))
                    .isInstanceOf(DecodeException.class)
                    .satisfies(
                            e -> assertThat(((DecodeException) e).errorType()).isEqualTo("missing_id"));
        }
        assertThatThrownBy(() -> builder("{topics: [orders], index: o, id: {key_field: id}, key_format: json}")
                        .build(record(utf8("{\"other\":1}"), utf8("{}"))))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("key field id")
                .satisfies(e -> assertThat(((DecodeException) e).errorType()).isEqualTo("missing_id"));
    }

    @Test
    void malformedKeysSayWhy() {
        assertThatThrownBy(() -> builder("{topics: [orders], index: o, id: key, key_format: json}")
                        .build(record(utf8("{\"id\":"), utf8("{}"))))
                .isInstanceOf(DecodeException.class)
                .hasMessageStartingWith("key is not valid JSON")
                .satisfies(e -> assertThat(((DecodeException) e).errorType()).isEqualTo("malformed_key"));
        assertThatThrownBy(() -> builder("{topics: [orders], index: o, id: key, key_format: connect-json}")
                        .build(record(utf8("42"), utf8("{}"))))
                .isInstanceOf(DecodeException.class)
                .hasMessageStartingWith("key ")
                .satisfies(e -> assertThat(((DecodeException) e).errorType()).isEqualTo("not_connect_envelope"));
    }

    @Test
    void confluentAvroKeysFromTheRegistryOfAnyTypeBecomeTheirCanonicalText() throws Exception {
        Schema record = new Schema.Parser()
                .parse("{\"type\":\"record\",\"name\":\"Key\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"},"
                        + "{\"name\":\"tenant\",\"type\":\"string\"}]}");
        GenericData.Record key = new GenericData.Record(record);
        key.put("id", 42L);
        key.put("tenant", "t1");
        try (TestSchemaRegistry registry = new TestSchemaRegistry()
                .register(1, "\"string\"")
                .register(2, record.toString())
                .register(3, AvroTestData.ORDER_SCHEMA)) {
            String route = "{topics: [orders], index: o, key_format: confluent-avro, schema_registry_url: \""
                    + registry.url() + "\", id: ";
            byte[] stringKey = AvroTestData.confluent(1, AvroTestData.write(Schema.create(Schema.Type.STRING), "k1"));
            byte[] recordKey = AvroTestData.confluent(2, AvroTestData.write(record, key));
            assertThat(builder(route + "key}")
                            .build(record(stringKey, utf8("{}")))
                            .id())
                    .isEqualTo("k1");
            assertThat(builder(route + "key}")
                            .build(record(recordKey, utf8("{}")))
                            .id())
                    .isEqualTo("{\"id\":42,\"tenant\":\"t1\"}");
            assertThat(builder(route + "{key_field: id}}")
                            .build(record(recordKey, utf8("{}")))
                            .id())
                    .isEqualTo("42");
            assertThatThrownBy(() -> builder(route + "key}").build(record(utf8("k1"), utf8("{}"))))
                    .isInstanceOf(DecodeException.class)
                    .hasMessageStartingWith("key is not in the Confluent wire format")
                    .satisfies(
                            e -> assertThat(((DecodeException) e).errorType()).isEqualTo("not_confluent_wire_format"));
        }
    }
}
