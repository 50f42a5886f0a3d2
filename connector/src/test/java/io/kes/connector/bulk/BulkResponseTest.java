package io.kes.connector.bulk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
}
