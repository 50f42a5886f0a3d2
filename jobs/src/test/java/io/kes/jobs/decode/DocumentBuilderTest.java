package io.kes.jobs.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kes.connector.DocumentOperation;
import io.kes.connector.KafkaCoordinateId;
import io.kes.connector.OpType;
import io.kes.connector.RecordOrigin;
import io.kes.jobs.config.KesConfig;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DocumentBuilderTest {

    private static final long KAFKA_TIME = Instant.parse("2026-03-04T05:06:07Z").toEpochMilli();

    private static DocumentBuilder builder(String routeYaml) {
        KesConfig config = KesConfig.parse(
                "elasticsearch: {hosts: [http://localhost:9200]}\n"
                        + "kafka: {bootstrap_servers: localhost:9092}\nroutes:\n" + routeYaml,
                Map.of());
        return new DocumentBuilder(config.routes.get(0));
    }

    private static KafkaRecord record(String key, String value) {
        return new KafkaRecord(
                "orders",
                2,
                41,
                KAFKA_TIME,
                key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8),
                List.of());
    }

    private static String source(DocumentOperation op) {
        return new String(op.source(), StandardCharsets.UTF_8);
    }

    @Test
    void plainRoutesPassTheValueBytesThroughUntouched() throws Exception {
        KafkaRecord r = record(null, "{ \"a\" : 1 }");
        DocumentOperation op = builder("  - {topics: [orders], index: orders}").build(r);
        assertThat(op.source()).isSameAs(r.value());
        assertThat(op.id()).isEqualTo(KafkaCoordinateId.of("orders", 2, 41));
        assertThat(op.opType()).isEqualTo(OpType.INDEX);
        assertThat(op.origin().toString()).isEqualTo("orders/2@41");
    }

    /** Kafka Connect's Elasticsearch sink names a document {@code topic+partition+offset} with key.ignore=true. */
    @Test
    void idKafkaConnectGivesTheConnectorsTopicPartitionOffsetIds() throws Exception {
        DocumentOperation op = builder("  - {topics: [orders], index: orders, id: kafka-connect}")
                .build(record(null, "{\"a\":1}"));
        assertThat(op.id()).isEqualTo("orders+2+41");
        assertThat(op.idUnique()).isTrue();
    }

    @Test
    void withVersionByKafkaOffsetWritesAndTombstonesCarryTheirRecordsOffset() throws Exception {
        DocumentBuilder versioned = builder(
                "  - {topics: [orders], index: orders, id: key, op: delete-on-tombstone, version: kafka-offset}");
        assertThat(versioned.build(record("k", "{}")).version()).isEqualTo(41);
        assertThat(versioned.build(record("k", null)).version()).isEqualTo(41);
        assertThat(builder("  - {topics: [orders], index: orders, id: key}")
                        .build(record("k", "{}"))
                        .version())
                .isEqualTo(DocumentOperation.NO_VERSION);
    }

    /** Issue 27 item 8: binary keys (a Confluent Avro key: magic byte, schema id, Avro) decoded as text collapsed into one id. */
    @Test
    void distinctBinaryKeysStayDistinctIdsAndTextKeysStayAsTheyAre() {
        byte[] avroKey1 = {0, 0, 0, 0, 7, (byte) 0xFF, 0x01}; // not UTF-8: both decode as text to "\0\0\0\0\7\uFFFD\1"
        byte[] avroKey2 = {0, 0, 0, 0, 7, (byte) 0xFE, 0x01};
        assertThat(KeyIds.text(avroKey1)).isNotEqualTo(KeyIds.text(avroKey2)).startsWith("\uFFFDb64:");
        assertThat(KeyIds.text("order-42 \u00e9\u2603".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo("order-42 \u00e9\u2603");
        byte[] lookalike = (KeyIds.BINARY_KEY_PREFIX + "AAAAAAf_AQ").getBytes(StandardCharsets.UTF_8);
        assertThat(KeyIds.text(lookalike))
                .as("a text key that looks like an encoded one")
                .isNotEqualTo(KeyIds.text(avroKey1));
    }

    /** Issue 27 item 8: a route with {@code id: key} gives binary keys their marked base64 ids, not U+FFFD text. */
    @Test
    void aRouteWithIdsFromKeysKeepsDistinctBinaryKeysDistinct() throws Exception {
        DocumentBuilder byKey = builder("  - {topics: [orders], index: o, id: key}");
        byte[] avroKey1 = {0, 0, 0, 0, 7, (byte) 0xFF, 0x01};
        byte[] avroKey2 = {0, 0, 0, 0, 7, (byte) 0xFE, 0x01};
        byte[] value = "{}".getBytes(StandardCharsets.UTF_8);

        String id1 = byKey.build(new KafkaRecord("orders", 2, 41, KAFKA_TIME, avroKey1, value, List.of()))
                .id();
        String id2 = byKey.build(new KafkaRecord("orders", 2, 42, KAFKA_TIME, avroKey2, value, List.of()))
                .id();

        assertThat(id1).isNotEqualTo(id2).startsWith(KeyIds.BINARY_KEY_PREFIX);
    }

    @Test
    void everyDocumentOfARouteWithAPipelineNamesIt() throws Exception {
        assertThat(builder("  - {topics: [orders], index: orders, pipeline: geoip}")
                        .build(record(null, "{}"))
                        .pipeline())
                .isEqualTo("geoip");
        assertThat(builder("  - {topics: [orders], index: orders, routing: user, pipeline: geoip}")
                        .build(record(null, "{\"user\":\"u1\"}"))
                        .pipeline())
                .isEqualTo("geoip");
        assertThat(builder("  - {topics: [orders], index: orders}")
                        .build(record(null, "{}"))
                        .pipeline())
                .isNull();
    }

    @Test
    void idsComeFromAFieldTheKeyOrAHashOfFields() throws Exception {
        String doc = "{\"order\":{\"id\":\"o-7\"},\"user\":\"u1\"}";
        assertThat(builder("  - {topics: [orders], index: o, id: {field: order.id}}")
                        .build(record(null, doc))
                        .id())
                .isEqualTo("o-7");
        assertThat(builder("  - {topics: [orders], index: o, id: key}")
                        .build(record("k-9", doc))
                        .id())
                .isEqualTo("k-9");
        String hash = builder("  - {topics: [orders], index: o, id: {hash: [user, order.id]}}")
                .build(record(null, doc))
                .id();
        assertThat(hash)
                .hasSize(22)
                .isEqualTo(builder("  - {topics: [orders], index: o, id: {hash: [user, order.id]}}")
                        .build(record(null, "{\"user\":\"u1\",\"order\":{\"id\":\"o-7\"},\"other\":1}"))
                        .id());
        assertThat(builder("  - {topics: [orders], index: o, id: none}")
                        .build(record(null, doc))
                        .id())
                .isNull();
    }

    @Test
    void indexNamesUseFieldsAndTheEventTime() throws Exception {
        DocumentBuilder b = builder("  - {topics: [orders], index: \"logs-{service}-{@timestamp|yyyy.MM.dd}\"}");
        assertThat(b.build(record(null, "{\"service\":\"Checkout\",\"@timestamp\":\"2026-11-21T23:59:59Z\"}"))
                        .index())
                .isEqualTo("logs-checkout-2026.11.21");
        assertThat(b.build(record(null, "{\"service\":\"cart\",\"@timestamp\":1767225600000}"))
                        .index())
                .isEqualTo("logs-cart-2026.01.01");
        assertThat(b.build(record(null, "{\"service\":\"cart\"}")).index())
                .as("Kafka timestamp when the field is absent")
                .isEqualTo("logs-cart-2026.03.04");
    }

    @Test
    void fieldsAreRenamedExcludedAndIncluded() throws Exception {
        DocumentBuilder b = builder("  - topics: [orders]\n    index: o\n    rename: {msg: message}\n"
                + "    exclude: [payload.raw]\n    include: [message, payload, level]");
        DocumentOperation op = b.build(
                record(null, "{\"msg\":\"hi\",\"payload\":{\"raw\":\"x\",\"n\":1},\"level\":\"INFO\",\"debug\":true}"));
        assertThat(source(op)).isEqualTo("{\"payload\":{\"n\":1},\"level\":\"INFO\",\"message\":\"hi\"}");
        assertThat(new String(op.origin().originalValue(), StandardCharsets.UTF_8))
                .contains("\"debug\":true");
    }

    @Test
    void dataStreamDocumentsAreCreatedWithATimestamp() throws Exception {
        DocumentOperation op = builder("  - {topics: [orders], data_stream: logs-orders-default}")
                .build(record(null, "{\"a\":1}"));
        assertThat(op.opType()).isEqualTo(OpType.CREATE);
        assertThat(op.index()).isEqualTo("logs-orders-default");
        assertThat(source(op)).isEqualTo("{\"a\":1,\"@timestamp\":\"2026-03-04T05:06:07Z\"}");
    }

    @Test
    void tombstonesDeleteByKeyWhenTheRouteSaysSo() throws Exception {
        DocumentOperation op = builder("  - {topics: [orders], index: o, id: key, op: delete-on-tombstone}")
                .build(record("k-1", null));
        assertThat(op.opType()).isEqualTo(OpType.DELETE);
        assertThat(op.id()).isEqualTo("k-1");
    }

    @Test
    void everyDocumentCarriesItsRecordsKeyAndHeadersForTheDeadLetterTopic() throws Exception {
        List<RecordOrigin.Header> headers =
                List.of(new RecordOrigin.Header("h", new byte[] {0, (byte) 0xff}), new RecordOrigin.Header("h", null));
        byte[] key = "k-1".getBytes(StandardCharsets.UTF_8);
        byte[] value = "{ \"id\" : \"7\", \"drop\": 1 }".getBytes(StandardCharsets.UTF_8);
        KafkaRecord r = new KafkaRecord("orders", 2, 41, KAFKA_TIME, key, value, headers);
        KafkaRecord tombstone = new KafkaRecord("orders", 2, 42, KAFKA_TIME, key, null, headers);

        RecordOrigin fast =
                builder("  - {topics: [orders], index: o, id: key}").build(r).origin();
        RecordOrigin parsed = builder("  - {topics: [orders], index: o, id: {field: id}}")
                .build(r)
                .origin();
        RecordOrigin changed = builder("  - {topics: [orders], index: o, id: {field: id}, exclude: [drop]}")
                .build(r)
                .origin();
        RecordOrigin deleted = builder("  - {topics: [orders], index: o, id: key, op: delete-on-tombstone}")
                .build(tombstone)
                .origin();
        for (RecordOrigin origin : List.of(fast, parsed, changed, deleted)) {
            assertThat(origin.originalKey()).isSameAs(key);
            assertThat(origin.headers()).isSameAs(headers);
        }
        // the value crosses once: as the source when unchanged, as the original beside a changed source
        assertThat(fast.originalValue()).isNull();
        assertThat(parsed.originalValue()).isNull();
        assertThat(changed.originalValue()).isSameAs(value);
    }

    @Test
    void indexNamesTakeTheLastHeaderOfAName() throws Exception {
        KafkaRecord r = new KafkaRecord(
                "orders",
                2,
                41,
                KAFKA_TIME,
                null,
                "{}".getBytes(StandardCharsets.UTF_8),
                List.of(
                        new RecordOrigin.Header("tenant", "old".getBytes(StandardCharsets.UTF_8)),
                        new RecordOrigin.Header("tenant", "acme".getBytes(StandardCharsets.UTF_8))));
        assertThat(builder("  - {topics: [orders], index: \"o-{_header.tenant}\"}")
                        .build(r)
                        .index())
                .isEqualTo("o-acme");
        assertThatThrownBy(() -> builder("  - {topics: [orders], index: \"o-{_header.region}\"}")
                        .build(r))
                .hasMessageContaining("needs header region");
    }

    @Test
    void recordsThatCannotBecomeDocumentsSayWhy() {
        DocumentBuilder fieldId = builder("  - {topics: [orders], index: o, id: {field: order.id}}");
        assertThatThrownBy(() -> fieldId.build(record(null, "{not json")))
                .isInstanceOf(DecodeException.class)
                .hasMessageStartingWith("value is not valid JSON");
        assertThatThrownBy(() -> fieldId.build(record(null, "[1,2]")))
                .hasMessage("value must be a JSON object, got ARRAY");
        assertThatThrownBy(() -> fieldId.build(record(null, "{\"order\":{}}")))
                .isInstanceOf(DecodeException.class)
                .hasMessage("field order.id (the id) is missing")
                .satisfies(e -> assertThat(((DecodeException) e).errorType()).isEqualTo("missing_id"));
        assertThatThrownBy(() -> builder("  - {topics: [orders], index: \"x-{@timestamp|yyyy}\"}")
                        .build(record(null, "{\"@timestamp\":\"yesterday\"}")))
                .hasMessage("field @timestamp 'yesterday' is neither an ISO-8601 date-time nor epoch milliseconds");
        assertThatThrownBy(() -> builder("  - {topics: [orders], index: o}").build(record(null, null)))
                .hasMessageContaining("a tombstone")
                .hasMessageContaining("op: delete-on-tombstone");
    }
}
