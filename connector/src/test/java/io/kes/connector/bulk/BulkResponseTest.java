package io.kes.connector.bulk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BulkResponseTest {

    private static BulkResponse parse(String json, int items) throws IOException {
        return BulkResponse.parse(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), items);
    }

    @Test
    void readsStatusPrimaryTermAndErrorsOfEveryItemInOrder() throws IOException {
        BulkResponse r = parse(
                "{\"errors\":true,\"items\":["
                        + "{\"index\":{\"_index\":\"logs-1\",\"_seq_no\":7,\"_primary_term\":2,\"status\":201}},"
                        + "{\"create\":{\"_index\":\"logs-1\",\"status\":429,\"error\":{\"type\":\"es_rejected_execution_exception\",\"reason\":\"queue full\"}}},"
                        + "{\"index\":{\"_index\":\"logs-1\",\"status\":400,\"error\":{\"type\":\"document_parsing_exception\",\"reason\":\"failed to parse field [n]\","
                        + "\"caused_by\":{\"type\":\"number_format_exception\",\"reason\":\"For input string: \\\"x\\\"\"}}}}"
                        + "]}",
                3);
        assertThat(r.status).containsExactly(201, 429, 400);
        assertThat(r.primaryTerm).containsExactly(2, -1, -1);
        assertThat(r.index).containsExactly("logs-1", "logs-1", "logs-1");
        assertThat(r.errorType).containsExactly(null, "es_rejected_execution_exception", "document_parsing_exception");
        assertThat(r.errorReason[2]).isEqualTo("failed to parse field [n]: For input string: \"x\"");
    }

    @Test
    void keepsEachItemsOwnIndexWhenTheyDiffer() throws IOException {
        // e.g. a data stream rolled over in the middle of a bulk: same length, different backing index
        BulkResponse r = parse(
                "{\"items\":["
                        + "{\"index\":{\"_index\":\".ds-logs-000001\",\"status\":201}},"
                        + "{\"index\":{\"_index\":\".ds-logs-000001\",\"status\":201}},"
                        + "{\"index\":{\"_index\":\".ds-logs-000002\",\"status\":201}},"
                        + "{\"index\":{\"_index\":\"other\",\"status\":201}}"
                        + "]}",
                4);
        assertThat(r.index).containsExactly(".ds-logs-000001", ".ds-logs-000001", ".ds-logs-000002", "other");
        assertThat(r.index[1]).isSameAs(r.index[0]);
    }

    @Test
    void rejectsAResponseWithAnotherNumberOfItemsThanSent() {
        assertThatThrownBy(() -> parse("{\"items\":[{\"index\":{\"status\":201}}]}", 2))
                .isInstanceOf(IOException.class)
                .hasMessage("bulk response has 1 items for the 2 sent");
    }

    @Test
    void anAnswerOfPlainItemsIsReadWithoutTheStreamingParserAndAsItWould() throws IOException {
        String json = "{\"items\":["
                + "{\"index\":{\"_index\":\"logs\",\"_primary_term\":3,\"result\":\"created\",\"status\":201}},"
                + "{\"update\":{\"_index\":\"logs\",\"result\":\"noop\",\"_primary_term\":1,\"status\":200}},"
                + "{\"create\":{\"status\":201,\"failure_store\":\"used\",\"_index\":\".fs-logs-1\"}},"
                + "{\"delete\":{\"_index\":\"logs\",\"result\":\"not_found\",\"status\":404,\"_primary_term\":12}}"
                + "]}";
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        assertThat(new PlainItems(bytes, bytes.length).read(4))
                .as("read as plain items")
                .isNotNull();
        assertSameAsStreaming(json, 4);
        BulkResponse r = BulkResponse.parse(bytes, bytes.length, 4);
        assertThat(r.noop).containsExactly(false, true, false, false);
        assertThat(r.failureStored).containsExactly(false, false, true, false);
        assertThat(r.index[1]).as("the previous item's index name, not a copy").isSameAs(r.index[0]);
    }

    @Test
    void anItemRepeatingThePreviousOneReadsTheSameAsIfItWereReadFieldByField() throws IOException {
        String created = "{\"index\":{\"_index\":\"logs\",\"_primary_term\":3,\"result\":\"created\",\"status\":201}}";
        String updated = "{\"index\":{\"_index\":\"logs\",\"_primary_term\":3,\"result\":\"updated\",\"status\":200}}";
        String noop = "{\"index\":{\"_index\":\"logs\",\"_primary_term\":3,\"result\":\"noop\",\"status\":200}}";
        String json = "{\"items\":[" + String.join(",", created, created, updated, updated, noop, created) + "]}";
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        BulkResponse r = new PlainItems(bytes, bytes.length).read(6);
        assertThat(r.status).containsExactly(201, 201, 200, 200, 200, 201);
        assertThat(r.noop).containsExactly(false, false, false, false, true, false);
        assertThat(r.primaryTerm).containsOnly(3L);
        assertThat(r.index).containsOnly("logs");
        assertSameAsStreaming(json, 6);
        String cut = "{\"items\":[" + created + "," + created.substring(0, created.length() - 1) + "]}";
        byte[] cutBytes = cut.getBytes(StandardCharsets.UTF_8);
        assertThat(new PlainItems(cutBytes, cutBytes.length).read(2))
                .as("a repeat cut short")
                .isNull();
        String longer = "{\"items\":[" + created + "," + created + created + "]}";
        byte[] longerBytes = longer.getBytes(StandardCharsets.UTF_8);
        assertThat(new PlainItems(longerBytes, longerBytes.length).read(2))
                .as("a repeat followed by more than a comma or the end")
                .isNull();
    }

    @Test
    void anyOtherAnswerIsLeftToTheStreamingParser() throws IOException {
        String ok = "{\"index\":{\"_index\":\"logs\",\"status\":201}}";
        for (String json : List.of(
                "{\"items\":[" + ok + ",{\"index\":{\"_index\":\"logs\",\"status\":429,"
                        + "\"error\":{\"type\":\"es_rejected_execution_exception\",\"reason\":\"full\"}}}]}",
                "{\"items\":[" + ok + ",{\"index\":{\"_index\":\"lo\\u0067s\",\"status\":201}}]}",
                "{\"items\": [" + ok + "," + ok + "]}",
                "{\"errors\":false,\"items\":[" + ok + "," + ok + "]}",
                "{\"items\":[" + ok + ",{\"index\":{\"_index\":\"logs\",\"status\":-1}}]}",
                "{\"items\":[" + ok + ",{\"index\":{\"_index\":\"logs\",\"_primary_term\":1.5,\"status\":201}}]}",
                "{\"items\":[" + ok + ",{\"index\":{\"_index\":\"l\u00f6gs\",\"status\":201}}]}",
                "{\"items\":[" + ok + ",{\"index\":{\"_index\":\"logs\",\"_version\":3,\"status\":201}}]}")) {
            byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
            assertThat(new PlainItems(bytes, bytes.length).read(2)).as(json).isNull();
            assertSameAsStreaming(json, 2);
        }
        byte[] plain = ("{\"items\":[" + ok + "," + ok + "]}").getBytes(StandardCharsets.UTF_8);
        assertThat(new PlainItems(plain, plain.length).read(3))
                .as("fewer items than sent")
                .isNull();
        assertThatThrownBy(() -> BulkResponse.parse(plain, plain.length, 3))
                .isInstanceOf(IOException.class)
                .hasMessage("bulk response has 2 items for the 3 sent");
    }

    @Test
    void randomAnswersReadTheSameWithAndWithoutTheStreamingParser() throws IOException {
        Random random = new Random(42);
        for (int run = 0; run < 500; run++) {
            int items = 1 + random.nextInt(20);
            StringBuilder json = new StringBuilder("{\"items\":[");
            String previous = null;
            for (int i = 0; i < items; i++) {
                if (previous != null && random.nextInt(3) > 0) { // most items of a real answer repeat the one before
                    json.append(',').append(previous);
                    continue;
                }
                List<String> fields = new ArrayList<>();
                if (random.nextInt(10) > 0) {
                    fields.add(
                            "\"_index\":\"" + (random.nextInt(5) == 0 ? "logs-" + random.nextInt(3) : "logs") + "\"");
                }
                fields.add("\"status\":" + List.of(200, 201, 404, 409, 429, 500).get(random.nextInt(6)));
                if (random.nextBoolean()) {
                    fields.add("\"_primary_term\":" + random.nextInt(1_000_000));
                }
                if (random.nextBoolean()) {
                    fields.add("\"result\":\""
                            + List.of("created", "updated", "noop", "deleted", "not_found")
                                    .get(random.nextInt(5)) + "\"");
                }
                if (random.nextInt(10) == 0) {
                    fields.add("\"failure_store\":\"" + (random.nextBoolean() ? "used" : "not_enabled") + "\"");
                }
                if (random.nextInt(15) == 0) {
                    fields.add(
                            "\"error\":{\"type\":\"version_conflict_engine_exception\",\"reason\":\"[d1]: version \\\"conflict\\\"\"}");
                }
                Collections.shuffle(fields, random);
                previous =
                        "{\"" + List.of("index", "create", "update", "delete").get(random.nextInt(4)) + "\":{"
                                + String.join(",", fields) + "}}";
                json.append(i > 0 ? "," : "").append(previous);
            }
            assertSameAsStreaming(json.append("]}").toString(), items);
        }
    }

    private static void assertSameAsStreaming(String json, int items) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        BulkResponse read = BulkResponse.parse(bytes, bytes.length, items);
        BulkResponse streamed = parse(json, items);
        assertThat(read).as(json).usingRecursiveComparison().isEqualTo(streamed);
    }
}
