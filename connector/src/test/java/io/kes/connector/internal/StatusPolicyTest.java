package io.kes.connector.internal;

import static io.kes.connector.internal.StatusPolicy.Action.DONE;
import static io.kes.connector.internal.StatusPolicy.Action.PERMANENT;
import static io.kes.connector.internal.StatusPolicy.Action.RETRY;
import static io.kes.connector.internal.StatusPolicy.Action.SPLIT;
import static io.kes.connector.internal.StatusPolicy.Action.STOP;
import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.OpType;
import io.kes.connector.internal.StatusPolicy.Action;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one table of what kes does after an answer: each row a status (and error type, op type) and the action. */
class StatusPolicyTest {

    private record ItemRow(
            int status, String errorType, OpType opType, boolean versioned, Action expected, String why) {}

    private static final List<ItemRow> ITEMS = List.of(
            new ItemRow(200, null, OpType.INDEX, false, DONE, "acknowledged"),
            new ItemRow(201, null, OpType.CREATE, false, DONE, "acknowledged"),
            new ItemRow(
                    409,
                    "version_conflict_engine_exception",
                    OpType.CREATE,
                    false,
                    DONE,
                    "a create replayed: idempotent"),
            new ItemRow(404, null, OpType.DELETE, false, DONE, "deleting a missing document"),
            new ItemRow(
                    409,
                    "version_conflict_engine_exception",
                    OpType.INDEX,
                    true,
                    DONE,
                    "a stale replay of a versioned write"),
            new ItemRow(
                    409,
                    "version_conflict_engine_exception",
                    OpType.DELETE,
                    true,
                    DONE,
                    "a stale replay of a versioned delete"),
            new ItemRow(429, "es_rejected_execution_exception", OpType.INDEX, false, RETRY, "rejected"),
            new ItemRow(429, "circuit_breaking_exception", OpType.INDEX, false, RETRY, "rejected"),
            new ItemRow(503, "unavailable_shards_exception", OpType.INDEX, false, RETRY, "unavailable"),
            new ItemRow(500, "null_pointer_exception", OpType.INDEX, false, RETRY, "a node's error"),
            new ItemRow(
                    409,
                    "version_conflict_engine_exception",
                    OpType.UPSERT,
                    false,
                    RETRY,
                    "still conflicting after retry_on_conflict"),
            new ItemRow(400, "mapper_parsing_exception", OpType.INDEX, false, PERMANENT, "the document"),
            new ItemRow(400, "document_parsing_exception", OpType.INDEX, false, PERMANENT, "the document"),
            new ItemRow(400, "strict_dynamic_mapping_exception", OpType.INDEX, false, PERMANENT, "the mapping"),
            new ItemRow(400, "illegal_argument_exception", OpType.INDEX, false, PERMANENT, "the document"),
            new ItemRow(400, "invalid_index_name_exception", OpType.INDEX, false, PERMANENT, "the index name"),
            new ItemRow(
                    404, "index_not_found_exception", OpType.INDEX, false, PERMANENT, "no such index, none created"),
            new ItemRow(
                    409, "version_conflict_engine_exception", OpType.INDEX, false, PERMANENT, "no version: not kes's"),
            new ItemRow(
                    403,
                    "cluster_block_exception",
                    OpType.INDEX,
                    false,
                    PERMANENT,
                    "a write block refuses the document"),
            new ItemRow(403, "security_exception", OpType.INDEX, false, STOP, "a privilege"),
            new ItemRow(401, "security_exception", OpType.DELETE, false, STOP, "credentials"));

    @Test
    void eachItemAnswerHasItsAction() {
        for (ItemRow row : ITEMS) {
            assertThat(StatusPolicy.ofItem(row.status(), row.errorType(), null, row.opType(), row.versioned()))
                    .as(row.status() + " " + row.errorType() + " on " + row.opType()
                            + (row.versioned() ? " (versioned)" : "") + ": " + row.why())
                    .isEqualTo(row.expected());
        }
    }

    /**
     * A node that just started answers "pipeline does not exist" until it applied the cluster
     * state holding its pipelines (the torture saw 495 records of a pipeline route dead-lettered
     * after an OpenSearch restart): the cluster's state, not the document's fault. Retried until
     * {@code retry.max_time}; a pipeline that really is missing then fails the job, naming it.
     */
    @Test
    void aPipelineThatDoesNotExistYetIsRetriedNotTakenAsTheDocumentsFault() {
        String missing = "pipeline with id [logs-mark] does not exist";

        assertThat(StatusPolicy.ofItem(400, "illegal_argument_exception", missing, OpType.INDEX, false))
                .isEqualTo(RETRY);
        assertThat(StatusPolicy.ofItem(
                        400, "illegal_argument_exception", "field [x] is not a date", OpType.INDEX, false))
                .isEqualTo(PERMANENT);
    }

    @Test
    void eachRequestAnswerHasItsAction() {
        int[][] rows = {
            {200, 0},
            {429, 1},
            {500, 1},
            {502, 1},
            {503, 1},
            {StatusPolicy.NO_RESPONSE, 1},
            {401, 2},
            {403, 2},
            {413, 3},
            {400, 4},
            {404, 4}
        };
        Action[] actions = {DONE, RETRY, STOP, SPLIT, PERMANENT};
        for (int[] row : rows) {
            assertThat(StatusPolicy.ofRequest(row[0])).as("HTTP " + row[0]).isEqualTo(actions[row[1]]);
        }
    }

    @Test
    void aRequestWithoutAnswerIsRetried() {
        for (IOException e : List.of(
                new ConnectException("refused"), new SocketTimeoutException("timed out"), new IOException("reset"))) {
            assertThat(StatusPolicy.ofFailure(e)).as(e.toString()).isEqualTo(RETRY);
        }
    }

    @Test
    void rejectionsAreToldFromUnavailability() {
        assertThat(StatusPolicy.rejected(429, null)).isTrue();
        assertThat(StatusPolicy.rejected(500, "es_rejected_execution_exception"))
                .isTrue();
        assertThat(StatusPolicy.rejected(503, "unavailable_shards_exception")).isFalse();
    }
}
