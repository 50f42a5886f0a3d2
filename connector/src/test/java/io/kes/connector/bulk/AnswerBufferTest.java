package io.kes.connector.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AnswerBufferTest {

    @Test
    void anItemOfAFilteredAnswerFitsTheBytesExpectedForIt() {
        String index = "logs-2026.11.28";
        // an item FILTER_PATH leaves of a document written (a failure-store note or an error grows the buffer once)
        String item = "{\"create\":{\"_index\":\"" + index
                + "\",\"_primary_term\":12345,\"result\":\"created\",\"status\":201}},";
        assertThat(item.length()).isLessThanOrEqualTo(AnswerBuffer.ITEM_BYTES + index.length());
    }
}
