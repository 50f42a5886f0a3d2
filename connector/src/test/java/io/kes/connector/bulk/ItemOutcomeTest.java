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
        assertThat(ItemOutcome.of(200, null, OpType.INDEX, false)).isEqualTo(SUCCESS);
        assertThat(ItemOutcome.of(201, null, OpType.CREATE, false)).isEqualTo(SUCCESS);
    }

    @Test
    void conflictOnCreateIsAnIdempotentReplayAndSucceeds() {
        assertThat(ItemOutcome.of(409, "version_conflict_engine_exception", OpType.CREATE, false)).isEqualTo(SUCCESS);
    }

    @Test
    void deletingAMissingDocumentSucceeds() {
        assertThat(ItemOutcome.of(404, null, OpType.DELETE, false)).isEqualTo(SUCCESS);
    }

    @Test
    void rejectionsAndUnavailableShardsAreRetried() {
        assertThat(ItemOutcome.of(429, "es_rejected_execution_exception", OpType.INDEX, false)).isEqualTo(RETRY);
        assertThat(ItemOutcome.of(429, "circuit_breaking_exception", OpType.INDEX, false)).isEqualTo(RETRY);
        assertThat(ItemOutcome.of(503, "unavailable_shards_exception", OpType.INDEX, false)).isEqualTo(RETRY);
        assertThat(ItemOutcome.of(500, "null_pointer_exception", OpType.INDEX, false)).isEqualTo(RETRY);
        assertThat(ItemOutcome.of(409, "version_conflict_engine_exception", OpType.UPSERT, false)).isEqualTo(RETRY);
    }

    @Test
    void documentErrorsArePermanentAndNeverRetried() {
        for (String type : new String[] {"mapper_parsing_exception", "document_parsing_exception",
                "strict_dynamic_mapping_exception", "illegal_argument_exception", "invalid_index_name_exception"}) {
            assertThat(ItemOutcome.of(400, type, OpType.INDEX, false)).as(type).isEqualTo(PERMANENT);
        }
        assertThat(ItemOutcome.of(404, "index_not_found_exception", OpType.INDEX, false)).isEqualTo(PERMANENT);
        assertThat(ItemOutcome.of(409, "version_conflict_engine_exception", OpType.INDEX, false)).isEqualTo(PERMANENT);
    }

    @Test
    void aVersionConflictOnAnExternallyVersionedWriteIsAStaleReplayAndDone() {
        assertThat(ItemOutcome.of(409, "version_conflict_engine_exception", OpType.INDEX, true)).isEqualTo(SUCCESS);
        assertThat(ItemOutcome.of(409, "version_conflict_engine_exception", OpType.DELETE, true)).isEqualTo(SUCCESS);
        assertThat(ItemOutcome.of(409, "version_conflict_engine_exception", OpType.INDEX, false)).as("no version: not kes's")
                .isEqualTo(PERMANENT);
    }
}
