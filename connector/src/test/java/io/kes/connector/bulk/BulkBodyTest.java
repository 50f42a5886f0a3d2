package io.kes.connector.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.DocumentOperation;
import io.kes.connector.OpType;
import io.kes.connector.RecordOrigin;
import io.kes.connector.routing.PredictedShard;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BulkBodyTest {

    private static String text(BulkBody body) {
        return new String(body.array(), 0, body.sizeInBytes(), StandardCharsets.UTF_8);
    }

    private static DocumentOperation op(OpType type, String id, String routing, String source) {
        return DocumentOperation.write(type, "logs")
                .id(id)
                .routing(routing)
                .source(source == null ? null : source.getBytes(StandardCharsets.UTF_8))
                .build();
    }

    @Test
    void writesOneActionLineAndTheUntouchedSourcePerDocument() {
        BulkBody body = new BulkBody(16);
        body.add(op(OpType.INDEX, "a1", null, "{\"x\":1}"), PredictedShard.UNKNOWN);
        body.add(op(OpType.CREATE, "a2", "r", "{\"x\":2}"), PredictedShard.UNKNOWN);
        body.add(op(OpType.DELETE, "a3", null, null), PredictedShard.UNKNOWN);
        assertThat(text(body))
                .isEqualTo("{\"index\":{\"_index\":\"logs\",\"_id\":\"a1\"}}\n{\"x\":1}\n"
                        + "{\"create\":{\"_index\":\"logs\",\"_id\":\"a2\",\"routing\":\"r\"}}\n{\"x\":2}\n"
                        + "{\"delete\":{\"_index\":\"logs\",\"_id\":\"a3\"}}\n");
        assertThat(body.itemCount()).isEqualTo(3);
    }

    @Test
    void aNamedIngestPipelineGoesInTheActionLine() {
        BulkBody body = new BulkBody(16);
        body.add(
                DocumentOperation.write(OpType.INDEX, "logs")
                        .id("a1")
                        .routing("r")
                        .source("{}".getBytes(StandardCharsets.UTF_8))
                        .pipeline("enrich \"v2\"")
                        .build(),
                PredictedShard.UNKNOWN);
        body.add(op(OpType.INDEX, "a2", null, "{}"), PredictedShard.UNKNOWN);
        assertThat(text(body))
                .isEqualTo(
                        "{\"index\":{\"_index\":\"logs\",\"_id\":\"a1\",\"routing\":\"r\",\"pipeline\":\"enrich \\\"v2\\\"\"}}\n{}\n"
                                + "{\"index\":{\"_index\":\"logs\",\"_id\":\"a2\"}}\n{}\n");
    }

    @Test
    void anExternalVersionGoesInTheActionLineAsExternalGte() {
        BulkBody body = new BulkBody(16);
        body.add(
                DocumentOperation.write(OpType.INDEX, "logs")
                        .id("k")
                        .source("{}".getBytes(StandardCharsets.UTF_8))
                        .version(41)
                        .build(),
                PredictedShard.UNKNOWN);
        body.add(
                DocumentOperation.write(OpType.DELETE, "logs")
                        .id("k")
                        .version(42)
                        .build(),
                PredictedShard.UNKNOWN);
        assertThat(text(body))
                .isEqualTo(
                        "{\"index\":{\"_index\":\"logs\",\"_id\":\"k\",\"version\":41,\"version_type\":\"external_gte\"}}\n{}\n"
                                + "{\"delete\":{\"_index\":\"logs\",\"_id\":\"k\",\"version\":42,\"version_type\":\"external_gte\"}}\n");
    }

    @Test
    void upsertWrapsTheSourceAsDocWithDocAsUpsert() {
        BulkBody body = new BulkBody(16);
        body.add(op(OpType.UPSERT, "u", null, "{\"n\":1}"), PredictedShard.UNKNOWN);
        assertThat(text(body))
                .isEqualTo("{\"update\":{\"_index\":\"logs\",\"_id\":\"u\",\"retry_on_conflict\":3}}\n"
                        + "{\"doc\":{\"n\":1},\"doc_as_upsert\":true}\n");
    }

    @Test
    void escapesIdsAndKeepsNonAsciiAndEmojiAsUtf8() {
        BulkBody body = new BulkBody(16);
        body.add(op(OpType.INDEX, "q\"b\\s\u0001 é 😀", null, "{}"), PredictedShard.UNKNOWN);
        assertThat(text(body)).startsWith("{\"index\":{\"_index\":\"logs\",\"_id\":\"q\\\"b\\\\s\\u0001 é 😀\"}}\n");
    }

    @Test
    void everyIdAndRoutingReadsBackAsItselfFromTheActionLine() throws Exception {
        // random strings of quotes, backslashes, every control character, ASCII, Latin-1, CJK and emoji
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        String[] alphabet = {"\"", "\\", "/", "a", "Z", "0", " ", "\u007f", "é", "ÿ", "Ł", "中", "😀", "\u2028"};
        java.util.Random random = new java.util.Random(11);
        for (int trial = 0; trial < 2000; trial++) {
            StringBuilder id = new StringBuilder();
            StringBuilder routing = new StringBuilder();
            for (int i = random.nextInt(12); i > 0; i--) {
                id.append(
                        random.nextInt(4) == 0
                                ? String.valueOf((char) random.nextInt(0x20))
                                : alphabet[random.nextInt(alphabet.length)]);
                routing.append(alphabet[random.nextInt(alphabet.length)]);
            }
            BulkBody body = new BulkBody(16);
            body.add(op(OpType.INDEX, id.toString(), routing.toString(), "{}"), PredictedShard.UNKNOWN);
            String actionLine = text(body).substring(0, text(body).indexOf('\n'));
            com.fasterxml.jackson.databind.JsonNode action =
                    json.readTree(actionLine).get("index");
            assertThat(action.get("_id").asText()).as("trial %d", trial).isEqualTo(id.toString());
            assertThat(action.get("routing").asText()).as("trial %d", trial).isEqualTo(routing.toString());
        }
    }

    @Test
    void prettyPrintedSourceBecomesOneLineWithoutChangingItsJson() {
        BulkBody body = new BulkBody(16);
        body.add(op(OpType.INDEX, "p", null, "{\n  \"a\": 1,\r\n  \"b\": [1,\n2]\n}"), PredictedShard.UNKNOWN);
        assertThat(text(body)).endsWith("\n{   \"a\": 1,    \"b\": [1, 2] }\n");
    }

    @Test
    void lineBreaksAreReplacedAtEveryPositionAndNothingElseChanges() {
        // every offset and length around the 16-byte blocks, line breaks next to multi-byte UTF-8, bytes
        // like 0x8a, and the other bytes below 0x0E (tab, 0x00, 0x0b, 0x0c), which only make a block look closer
        java.util.Random random = new java.util.Random(7);
        byte[] alphabet = {
            '\n',
            '\r',
            ' ',
            'a',
            '"',
            (byte) 0x8a,
            (byte) 0x8d,
            (byte) 0xc3,
            (byte) 0xa9,
            0x0b,
            0x09,
            0x0c,
            0x00,
            0x0e,
            0x7f,
            (byte) 0x80,
            (byte) 0xff
        };
        for (int trial = 0; trial < 5000; trial++) {
            byte[] bytes = new byte[random.nextInt(80)];
            boolean plain = random.nextBoolean(); // most sources: no byte below 0x0E at all
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = plain && random.nextInt(20) > 0
                        ? alphabet[2 + random.nextInt(5)]
                        : alphabet[random.nextInt(alphabet.length)];
            }
            int from = bytes.length == 0 ? 0 : random.nextInt(bytes.length);
            int to = from + random.nextInt(bytes.length - from + 1);
            byte[] expected = bytes.clone();
            boolean any = false;
            for (int i = from; i < to; i++) {
                if (expected[i] == '\n' || expected[i] == '\r') {
                    expected[i] = ' ';
                    any = true;
                }
            }
            boolean replaced = LineBreaks.replace(bytes, from, to);
            assertThat(bytes).as("trial %d, [%d, %d)", trial, from, to).isEqualTo(expected);
            assertThat(replaced).as("trial %d: whether it replaced any", trial).isEqualTo(any);
        }
    }

    @Test
    void retryBodyCarriesExactlyTheChosenItems() {
        BulkBody body = new BulkBody(16);
        body.add(op(OpType.INDEX, "1", null, "{\"i\":1}"), PredictedShard.UNKNOWN);
        body.add(op(OpType.DELETE, "2", null, null), PredictedShard.UNKNOWN);
        body.add(op(OpType.INDEX, "3", null, "{\"i\":3}"), PredictedShard.UNKNOWN);
        BulkBody retry = new BulkBody(16);
        retry.addEncoded(body, 1);
        retry.addEncoded(body, 2);
        assertThat(text(retry))
                .isEqualTo("{\"delete\":{\"_index\":\"logs\",\"_id\":\"2\"}}\n"
                        + "{\"index\":{\"_index\":\"logs\",\"_id\":\"3\"}}\n{\"i\":3}\n");
        assertThat(retry.operation(0).id()).isEqualTo("2");
        assertThat(retry.operation(1).id()).isEqualTo("3");
    }

    @Test
    void theBodyIsTheOnlyCopyOfASourceAndGivesItBackWhole() {
        DocumentOperation index = DocumentOperation.write(OpType.INDEX, "logs")
                .id("a1")
                .routing("r")
                .source("{\"x\":\"\u00e9\\\"\"}".getBytes(StandardCharsets.UTF_8))
                .pipeline("p")
                .origin(io.kes.connector.RecordOrigin.kafka("t", 3, 42))
                .build();
        DocumentOperation versioned = DocumentOperation.write(OpType.INDEX, "logs")
                .id("a2")
                .source("{}".getBytes(StandardCharsets.UTF_8))
                .version(7)
                .build();
        DocumentOperation upsert = op(OpType.UPSERT, "a3", null, "{\"y\":[1,2]}");
        DocumentOperation create = op(OpType.CREATE, null, null, "{\"z\":0}");
        DocumentOperation delete = op(OpType.DELETE, "a5", null, null);
        BulkBody body = new BulkBody(16);
        for (DocumentOperation op : new DocumentOperation[] {index, versioned, upsert, create, delete}) {
            body.add(op, PredictedShard.UNKNOWN);
        }

        assertThat(body.operation(0).source()).isEmpty();
        assertThat(body.operation(2).source()).isEmpty();
        assertThat(body.operation(0).id()).isEqualTo("a1");
        assertThat(body.document(0)).isEqualTo(index);
        assertThat(body.document(1)).isEqualTo(versioned);
        assertThat(body.document(2)).isEqualTo(upsert);
        assertThat(body.document(3)).isEqualTo(create);
        assertThat(body.document(4)).isEqualTo(delete);
        BulkBody retry = body.slice(2, 4);
        assertThat(retry.document(0)).isEqualTo(upsert);
        assertThat(retry.document(1)).isEqualTo(create);
    }

    @Test
    void aSourceWithLineBreaksKeepsItsOwnBytesForTheDeadLetterTopic() {
        DocumentOperation pretty = op(OpType.INDEX, "a1", null, "{\n  \"x\": 1\r\n}");
        BulkBody body = new BulkBody(16);
        body.add(pretty, PredictedShard.UNKNOWN);

        assertThat(text(body)).endsWith("{   \"x\": 1  }\n");
        assertThat(body.document(0)).isSameAs(pretty);
    }

    @Test
    void theHeapCountedHoldsEachSourceOnce() {
        byte[] source = ("{\"m\":\"" + "a".repeat(1000) + "\"}").getBytes(StandardCharsets.UTF_8);
        BulkBody body = new BulkBody(4096);
        body.add(DocumentOperation.index("logs", "a1", source), PredictedShard.UNKNOWN);

        assertThat(body.heapBytes()).isLessThan(4096L + source.length);
    }

    /**
     * A plain item keeps no operation of its own (an item lives seconds: every object it keeps is
     * copied by young collections); a unique id is read back out of the action line, escapes and all.
     */
    @Test
    void aPlainItemsUniqueIdIsReadBackOutOfItsActionLine() {
        String[] ids = {"t-0-7", "q\"b\\s", "c\u0001\u001fz", "\u00e9\u4e2d\ud83d\ude00", "\\u0041"};
        BulkBody body = new BulkBody(16);
        List<DocumentOperation> added = new ArrayList<>();
        for (String id : ids) {
            DocumentOperation op = DocumentOperation.write(OpType.INDEX, "logs-\u00e9")
                    .id(id)
                    .idUnique(true)
                    .source("{\"_id\":\"not this\"}".getBytes(StandardCharsets.UTF_8))
                    .origin(RecordOrigin.kafka("t", 0, added.size()))
                    .build();
            body.add(op, PredictedShard.UNKNOWN);
            added.add(op);
        }
        body.add(
                DocumentOperation.write(OpType.DELETE, "logs")
                        .id("gone")
                        .idUnique(true)
                        .build(),
                PredictedShard.UNKNOWN);

        for (int i = 0; i < ids.length; i++) {
            assertThat(body.id(i)).isEqualTo(ids[i]);
            assertThat(body.heldId(i)).as("a unique id is not held in flight").isNull();
            assertThat(body.document(i)).isEqualTo(added.get(i));
            assertThat(body.opType(i)).isEqualTo(OpType.INDEX);
            assertThat(body.index(i)).isEqualTo("logs-\u00e9");
        }
        assertThat(body.id(ids.length)).isEqualTo("gone");
        assertThat(body.document(ids.length).source()).isNull();
        BulkBody retry = body.slice(1, body.itemCount());
        assertThat(retry.id(0)).isEqualTo(ids[1]);
        assertThat(retry.document(3)).isEqualTo(added.get(4));
    }

    @Test
    void anIdThatMayRepeatIsKeptForTheHoldsAndOnlyAPlainItemIsMadeAgain() {
        DocumentOperation repeats = DocumentOperation.write(OpType.INDEX, "logs")
                .id("k")
                .source("{}".getBytes(StandardCharsets.UTF_8))
                .origin(new RecordOrigin("t", 1, 2, new byte[] {7}, null))
                .build();
        DocumentOperation routed = op(OpType.INDEX, "r1", "r", "{}");
        DocumentOperation anonymous = op(OpType.CREATE, null, null, "{}");
        BulkBody body = new BulkBody(16);
        body.add(repeats, PredictedShard.UNKNOWN);
        body.add(routed, PredictedShard.UNKNOWN);
        body.add(anonymous, PredictedShard.UNKNOWN);

        assertThat(body.heldId(0)).isEqualTo("k");
        assertThat(body.heldId(1)).isEqualTo("r1");
        assertThat(body.heldId(2)).isNull();
        assertThat(body.id(2)).isNull();
        assertThat(body.versioned(0)).isFalse();
        assertThat(body.document(0)).isEqualTo(repeats);
        assertThat(body.document(1)).isEqualTo(routed);
        assertThat(body.document(2)).isEqualTo(anonymous);
        assertThat(body.operation(1)).as("kept whole: it names a routing").isSameAs(body.operation(1));
        assertThat(body.operation(0)).as("made again: kept as parts").isNotSameAs(body.operation(0));
    }
}
