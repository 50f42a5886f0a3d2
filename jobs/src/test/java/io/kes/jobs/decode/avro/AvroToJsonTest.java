package io.kes.jobs.decode.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kes.jobs.decode.DecodeException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

class AvroToJsonTest {

    private static final String EVENT_SCHEMA = """
            {"type": "record", "name": "Event", "namespace": "io.kes.test", "fields": [
              {"name": "name", "type": "string"},
              {"name": "count", "type": "int"},
              {"name": "big", "type": "long"},
              {"name": "ratio", "type": "float"},
              {"name": "ok", "type": "boolean"},
              {"name": "maybe", "type": ["null", "string"]},
              {"name": "either", "type": ["null", "long", "string"]},
              {"name": "level", "type": {"type": "enum", "name": "Level", "symbols": ["DEBUG", "INFO", "WARN"]}},
              {"name": "payload", "type": "bytes"},
              {"name": "hash", "type": {"type": "fixed", "name": "Hash", "size": 4}},
              {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
              {"name": "atMicros", "type": {"type": "long", "logicalType": "timestamp-micros"}},
              {"name": "day", "type": {"type": "int", "logicalType": "date"}},
              {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
              {"name": "huge", "type": {"type": "bytes", "logicalType": "decimal", "precision": 30, "scale": 3}},
              {"name": "tags", "type": {"type": "array", "items": "string"}},
              {"name": "attrs", "type": {"type": "map", "values": "int"}},
              {"name": "user", "type": {"type": "record", "name": "User", "fields": [
                {"name": "id", "type": "long"},
                {"name": "email", "type": ["null", "string"], "default": null},
                {"name": "seen", "type": ["null", {"type": "long", "logicalType": "timestamp-millis"}], "default": null}
              ]}},
              {"name": "history", "type": {"type": "array", "items": "User"}}
            ]}""";

    private static final Schema SCHEMA = new Schema.Parser().parse(EVENT_SCHEMA);
    private static final Schema USER = SCHEMA.getField("user").schema();

    private static GenericRecord user(long id, String email, Long seen) {
        GenericRecord u = new GenericData.Record(USER);
        u.put("id", id);
        u.put("email", email);
        u.put("seen", seen);
        return u;
    }

    private static GenericRecord event(String maybe, Object either) {
        GenericRecord r = new GenericData.Record(SCHEMA);
        r.put("name", "checkout \"fast\" é");
        r.put("count", 7);
        r.put("big", 9_007_199_254_740_993L);
        r.put("ratio", 0.5f);
        r.put("ok", true);
        r.put("maybe", maybe);
        r.put("either", either);
        r.put("level", new GenericData.EnumSymbol(SCHEMA.getField("level").schema(), "WARN"));
        r.put("payload", ByteBuffer.wrap(new byte[] {1, 2, 3, (byte) 0xff}));
        r.put("hash", new GenericData.Fixed(SCHEMA.getField("hash").schema(), new byte[] {0, 0, 0, 1}));
        r.put("at", Instant.parse("2026-11-21T10:15:30.123Z").toEpochMilli());
        r.put("atMicros", 1_763_720_130_123_456L);
        r.put("day", (int) LocalDate.parse("2026-11-21").toEpochDay());
        Conversions.DecimalConversion decimals = new Conversions.DecimalConversion();
        Schema price = SCHEMA.getField("price").schema();
        r.put("price", decimals.toBytes(new BigDecimal("1234.50"), price, LogicalTypes.fromSchema(price)));
        Schema huge = SCHEMA.getField("huge").schema();
        r.put(
                "huge",
                decimals.toBytes(
                        new BigDecimal("123456789012345678901234567.891"), huge, LogicalTypes.fromSchema(huge)));
        r.put("tags", List.of("a", "b"));
        Map<String, Integer> attrs = new LinkedHashMap<>();
        attrs.put("x", 1);
        r.put("attrs", attrs);
        r.put(
                "user",
                user(42, "u@example.com", Instant.parse("2026-01-01T00:00:00Z").toEpochMilli()));
        r.put("history", List.of(user(1, null, null), user(2, "two@example.com", null)));
        return r;
    }

    private static String json(AvroToJson converter, GenericRecord r) throws DecodeException {
        return new String(converter.toJson(AvroTestData.write(SCHEMA, r)), StandardCharsets.UTF_8);
    }

    @Test
    void everyTypeBecomesNaturalJson() throws Exception {
        AvroToJson converter = new AvroToJson(SCHEMA);
        assertThat(json(converter, event("here", 5L)))
                .isEqualTo(
                        "{"
                                + "\"name\":\"checkout \\\"fast\\\" é\",\"count\":7,\"big\":9007199254740993,\"ratio\":0.5,\"ok\":true,"
                                + "\"maybe\":\"here\",\"either\":5,\"level\":\"WARN\",\"payload\":\"AQID/w==\",\"hash\":\"AAAAAQ==\","
                                + "\"at\":\"2026-11-21T10:15:30.123Z\",\"atMicros\":\"2025-11-21T10:15:30.123456Z\",\"day\":\"2026-11-21\","
                                + "\"price\":1234.50,\"huge\":\"123456789012345678901234567.891\",\"tags\":[\"a\",\"b\"],\"attrs\":{\"x\":1},"
                                + "\"user\":{\"id\":42,\"email\":\"u@example.com\",\"seen\":\"2026-01-01T00:00:00Z\"},"
                                + "\"history\":[{\"id\":1,\"email\":null,\"seen\":null},{\"id\":2,\"email\":\"two@example.com\",\"seen\":null}]}");
    }

    @Test
    void unionsAreTheirPlainValueWhicheverBranch() throws Exception {
        AvroToJson converter = new AvroToJson(SCHEMA);
        String withNulls = json(converter, event(null, null));
        assertThat(withNulls).contains("\"maybe\":null,\"either\":null,");
        // the same converter again (its datum is reused): another branch of the same union
        assertThat(json(converter, event("x", "text"))).contains("\"maybe\":\"x\",\"either\":\"text\",");
        assertThat(json(converter, event(null, 3L))).contains("\"maybe\":null,\"either\":3,");
    }

    @Test
    void bytesThatDoNotMatchTheSchemaAreAnAvroMismatch() throws Exception {
        AvroToJson converter = new AvroToJson(SCHEMA);
        byte[] good = AvroTestData.write(SCHEMA, event("here", 5L));

        byte[] trailing = Arrays.copyOf(good, good.length + 3);
        assertThatThrownBy(() -> converter.toJson(trailing))
                .isInstanceOf(DecodeException.class)
                .hasMessage(
                        "value does not match the Avro schema io.kes.test.Event: it has 3 bytes left over after the record (of "
                                + trailing.length + ")")
                .extracting(e -> ((DecodeException) e).errorType())
                .isEqualTo("avro_mismatch");

        byte[] shortBuffer = Arrays.copyOf(good, good.length - 5);
        assertThatThrownBy(() -> converter.toJson(shortBuffer))
                .isInstanceOf(DecodeException.class)
                .hasMessageStartingWith("value does not match the Avro schema io.kes.test.Event: it cannot be read: ")
                .extracting(e -> ((DecodeException) e).errorType())
                .isEqualTo("avro_mismatch");

        byte[] json = "{\"name\":\"not avro\"}".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> converter.toJson(json))
                .isInstanceOf(DecodeException.class)
                .extracting(e -> ((DecodeException) e).errorType())
                .isEqualTo("avro_mismatch");

        // a string length of about a billion must fail fast, not allocate a gigabyte
        byte[] hugeLength = {(byte) 0xfe, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07, 'a'};
        assertThatThrownBy(() -> converter.toJson(hugeLength))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("a string of 1073741823 bytes at byte 5, but only 1 are left");

        assertThat(json(converter, event("after", 1L)))
                .as("still usable after failures")
                .contains("\"maybe\":\"after\"");

        AvroToJson strings = new AvroToJson(AvroToJson.parse(
                "{\"type\":\"record\",\"name\":\"S\",\"fields\":[{\"name\":\"s\",\"type\":\"string\"}]}"));
        assertThatThrownBy(() -> strings.toJson(new byte[] {4, (byte) 0xff, (byte) 0xfe}))
                .hasMessageStartingWith(
                        "value does not match the Avro schema S: it cannot be rendered as JSON: java.nio.charset.MalformedInputException")
                .extracting(e -> ((DecodeException) e).errorType())
                .isEqualTo("avro_mismatch");
    }

    @Test
    void theOrderSchemaOfTheTests() throws Exception {
        AvroToJson converter = new AvroToJson(AvroToJson.parse(AvroTestData.ORDER_SCHEMA));
        byte[] value = AvroTestData.order(
                "o-1", 12.5, "PAID", null, Instant.parse("2026-11-21T10:00:00Z").toEpochMilli());
        assertThat(new String(converter.toJson(value), StandardCharsets.UTF_8))
                .isEqualTo(
                        "{\"id\":\"o-1\",\"amount\":12.5,\"status\":\"PAID\",\"note\":null,\"ts\":\"2026-11-21T10:00:00Z\"}");
    }

    @Test
    void onlyRecordsAndMapsMakeDocuments() {
        assertThatThrownBy(() -> new AvroToJson(Schema.create(Schema.Type.STRING)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the schema must be a record (documents are JSON objects), got a string");
    }
}
