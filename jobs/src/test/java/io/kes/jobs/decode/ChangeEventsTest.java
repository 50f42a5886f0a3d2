package io.kes.jobs.decode;

import static io.kes.jobs.decode.ConnectFormatsTest.builder;
import static io.kes.jobs.decode.ConnectFormatsTest.record;
import static io.kes.jobs.decode.ConnectFormatsTest.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kes.connector.DocumentOperation;
import io.kes.connector.OpType;
import io.kes.jobs.decode.avro.AvroTestData;
import io.kes.jobs.decode.avro.TestSchemaRegistry;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Upserts with tombstone deletes, and Debezium's change events: what each record does to its document. */
class ChangeEventsTest {

    private static final String DEBEZIUM =
            "{topics: [orders], index: o, cdc: debezium, key_format: json, " + "id: {key_field: id}";

    private static String source(DocumentOperation op) {
        return new String(op.source(), StandardCharsets.UTF_8);
    }

    @Test
    void upsertDeleteOnTombstoneUpsertsValuesAndDeletesOnTombstonesUnderOneId() throws Exception {
        DocumentBuilder b = builder("{topics: [orders], index: o, id: key, op: upsert-delete-on-tombstone}");
        DocumentOperation upsert = b.build(record(utf8("k1"), utf8("{\"a\":1}")));
        DocumentOperation delete = b.build(record(utf8("k1"), null));
        assertThat(upsert.opType()).isEqualTo(OpType.UPSERT);
        assertThat(delete.opType()).isEqualTo(OpType.DELETE);
        assertThat(delete.id()).isEqualTo(upsert.id()).isEqualTo("k1");
        // both writes of k1 are held in order by the writer: neither may be taken for the id's only write
        assertThat(upsert.idUnique()).isFalse();
        assertThat(delete.idUnique()).isFalse();
    }

    static Stream<Arguments> debeziumEvents() {
        String after = "{\"id\":1,\"name\":\"new\"}";
        return Stream.of(
                Arguments.of("{\"before\":null,\"after\":" + after + ",\"op\":\"c\"}", OpType.INDEX, after),
                Arguments.of("{\"before\":null,\"after\":" + after + ",\"op\":\"r\"}", OpType.INDEX, after),
                Arguments.of(
                        "{\"before\":{\"id\":1,\"name\":\"old\"},\"after\":" + after + ",\"op\":\"u\",\"ts_ms\":5}",
                        OpType.INDEX,
                        after),
                Arguments.of(
                        "{\"before\":{\"id\":1,\"name\":\"old\"},\"after\":null,\"op\":\"d\"}", OpType.DELETE, null),
                Arguments.of(null, OpType.DELETE, null)); // the tombstone after a delete: deleted again, a no-op
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void debeziumEvents(String value, OpType opType, String document) throws Exception {
        DocumentOperation op = builder(DEBEZIUM + "}").build(record(utf8("{\"id\":1}"), utf8(value)));
        assertThat(op.opType()).isEqualTo(opType);
        assertThat(op.id()).isEqualTo("1");
        if (document != null) {
            assertThat(source(op)).isEqualTo(document);
        }
    }

    @Test
    void debeziumEventsInConnectsJsonEnvelopeAndTheirFieldsTransformed() throws Exception {
        String envelope = "{\"schema\":{\"type\":\"struct\",\"fields\":[]},\"payload\":"
                + "{\"before\":null,\"after\":{\"id\":2,\"secret\":\"s\",\"n\":\"x\"},\"op\":\"c\"}}";
        String keyEnvelope = "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"field\":\"id\",\"type\":\"int32\"}]},"
                + "\"payload\":{\"id\":2}}";
        DocumentOperation op = builder("{topics: [orders], index: o, cdc: debezium, format: connect-json, "
                        + "key_format: connect-json, id: {key_field: id}, exclude: [secret]}")
                .build(record(utf8(keyEnvelope), utf8(envelope)));
        assertThat(op.id()).isEqualTo("2");
        assertThat(source(op)).isEqualTo("{\"id\":2,\"n\":\"x\"}");
    }

    @Test
    void debeziumEventsInAvroFromTheRegistry() throws Exception {
        Schema row = new Schema.Parser()
                .parse("{\"type\":\"record\",\"name\":\"Value\",\"namespace\":\"db.inv.customers\",\"fields\":["
                        + "{\"name\":\"id\",\"type\":\"int\"},{\"name\":\"email\",\"type\":\"string\"}]}");
        Schema envelope = Schema.createRecord(
                "Envelope",
                null,
                "db.inv.customers",
                false,
                java.util.List.of(
                        new Schema.Field("before", Schema.createUnion(Schema.create(Schema.Type.NULL), row)),
                        new Schema.Field("after", Schema.createUnion(Schema.create(Schema.Type.NULL), row)),
                        new Schema.Field("op", Schema.create(Schema.Type.STRING))));
        Schema key = new Schema.Parser()
                .parse("{\"type\":\"record\",\"name\":\"Key\",\"fields\":[{\"name\":\"id\",\"type\":\"int\"}]}");
        GenericData.Record image = new GenericData.Record(row);
        image.put("id", 3);
        image.put("email", "a@b.c");
        GenericData.Record update = new GenericData.Record(envelope);
        update.put("before", image);
        update.put("after", image);
        update.put("op", "u");
        GenericData.Record delete = new GenericData.Record(envelope);
        delete.put("before", image);
        delete.put("after", null);
        delete.put("op", "d");
        GenericData.Record k = new GenericData.Record(key);
        k.put("id", 3);
        try (TestSchemaRegistry registry =
                new TestSchemaRegistry().register(10, key.toString()).register(11, envelope.toString())) {
            DocumentBuilder b = builder("{topics: [orders], index: o, cdc: debezium, format: confluent-avro, "
                    + "key_format: confluent-avro, schema_registry_url: \"" + registry.url()
                    + "\", id: {key_field: id}}");
            byte[] keyBytes = AvroTestData.confluent(10, AvroTestData.write(key, k));
            DocumentOperation indexed =
                    b.build(record(keyBytes, AvroTestData.confluent(11, AvroTestData.write(envelope, update))));
            assertThat(indexed.opType()).isEqualTo(OpType.INDEX);
            assertThat(indexed.id()).isEqualTo("3");
            assertThat(source(indexed)).isEqualTo("{\"id\":3,\"email\":\"a@b.c\"}");
            DocumentOperation deleted =
                    b.build(record(keyBytes, AvroTestData.confluent(11, AvroTestData.write(envelope, delete))));
            assertThat(deleted.opType()).isEqualTo(OpType.DELETE);
            assertThat(deleted.id()).isEqualTo("3");
        }
    }

    static Stream<Arguments> malformedEvents() {
        return Stream.of(
                Arguments.of("{\"before\":null,\"after\":{\"id\":1},\"op\":\"x\"}", "unknown_cdc_op", "'x'"),
                Arguments.of("{\"before\":null,\"after\":null,\"op\":\"t\"}", "unknown_cdc_op", "truncate"),
                Arguments.of("{\"id\":1,\"name\":\"a row, not an event\"}", "malformed_cdc_event", "op"),
                Arguments.of("{\"before\":null,\"after\":null,\"op\":\"c\"}", "malformed_cdc_event", "after"),
                Arguments.of("{\"before\":null,\"after\":{\"id\":1},\"op\"", "malformed_json", "valid JSON"));
    }

    @ParameterizedTest(name = "{1}: {0}")
    @MethodSource
    void malformedEvents(String value, String errorType, String messagePart) {
        assertThatThrownBy(() -> builder(DEBEZIUM + "}").build(record(utf8("{\"id\":1}"), utf8(value))))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining(messagePart)
                .satisfies(e -> assertThat(((DecodeException) e).errorType()).isEqualTo(errorType));
    }
}
