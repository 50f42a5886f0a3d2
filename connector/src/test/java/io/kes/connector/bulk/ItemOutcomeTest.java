package io.kes.connector.bulk;

import static io.kes.connector.bulk.ItemOutcome.PERMANENT;
import static io.kes.connector.bulk.ItemOutcome.RETRY;
import static io.kes.connector.bulk.ItemOutcome.SUCCESS;
import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.OpType;
import org.junit.jupiter.api.Test;

class ItemOutcomeTest {

    @Test
    void acknowledgedWritesSucceed() {
        assertThat(ItemOutcome.of(200, null, OpType.INDEX)).isEqualTo(SUCCESS);
        assertThat(ItemOutcome.of(201, null, OpType.CREATE)).isEqualTo(SUCCESS);
    }

    @Test
    void conflictOnCreateIsAnIdempotentReplayAndSucceeds() {
        assertThat(ItemOutcome.of(409, "version_conflict_engine_exception", OpType.CREATE)).isEqualTo(SUCCESS);
    }

    @Test
    void deletingAMissingDocumentSucceeds() {
        assertThat(ItemOutcome.of(404, null, OpType.DELETE)).isEqualTo(SUCCESS);
    }

    @Test
    void rejectionsAndUnavailableShardsAreRetried() {
        assertThat(ItemOutcome.of(429, "es_rejected_execution_exception", OpType.INDEX)).isEqualTo(RETRY);
        assertThat(ItemOutcome.of(429, "circuit_breaking_exception", OpType.INDEX)).isEqualTo(RETRY);
        assertThat(ItemOutcome.of(503, "unavailable_shards_exception", OpType.INDEX)).isEqualTo(RETRY);
        assertThat(ItemOutcome.of(500, "null_pointer_exception", OpType.INDEX)).isEqualTo(RETRY);
        assertThat(ItemOutcome.of(409, "version_conflict_engine_exception", OpType.UPSERT)).isEqualTo(RETRY);
    }

    @Test
    void documentErrorsArePermanentAndNeverRetried() {
        for (String type : new String[] {"mapper_parsing_exception", "document_parsing_exception",
                "strict_dynamic_mapping_exception", "illegal_argument_exception", "invalid_index_name_exception"}) {
            assertThat(ItemOutcome.of(400, type, OpType.INDEX)).as(type).isEqualTo(PERMANENT);
        }
        assertThat(ItemOutcome.of(404, "index_not_found_exception", OpType.INDEX)).isEqualTo(PERMANENT);
        assertThat(ItemOutcome.of(409, "version_conflict_engine_exception", OpType.INDEX)).isEqualTo(PERMANENT);
    }
}
