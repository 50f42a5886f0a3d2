package io.kes.connector.cluster;

import static io.kes.connector.cluster.StatusPolicy.Action.DONE;
import static io.kes.connector.cluster.StatusPolicy.Action.PERMANENT;
import static io.kes.connector.cluster.StatusPolicy.Action.RETRY;
import static io.kes.connector.cluster.StatusPolicy.Action.SPLIT;
import static io.kes.connector.cluster.StatusPolicy.Action.STOP;
import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.OpType;
import io.kes.connector.cluster.StatusPolicy.Action;
import io.kes.connector.testing.CannedElasticsearch;
import io.kes.connector.testing.CannedElasticsearch.Answer;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.util.List;
import org.elasticsearch.client.Request;
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

    private record StillRunsRow(int status, boolean elasticsearchError, boolean mayStillRun, String why) {}

    /** Which failed requests Elasticsearch may still be running, so that a resend could land before a held copy. */
    private static final List<StillRunsRow> STILL_RUNS = List.of(
            new StillRunsRow(StatusPolicy.NO_RESPONSE, false, true, "no answer: timed out, reset, refused"),
            new StillRunsRow(504, false, true, "a proxy's read timeout: the node may still run it"),
            new StillRunsRow(504, true, true, "a 504 says nothing of the node's work, whatever its body"),
            new StillRunsRow(502, false, true, "a proxy lost its upstream connection mid-request"),
            new StillRunsRow(502, true, true, "a 502 is never Elasticsearch's own answer"),
            new StillRunsRow(503, false, true, "a load balancer's 503: not Elasticsearch's answer"),
            new StillRunsRow(500, false, true, "a 5xx page from something in between"),
            new StillRunsRow(503, true, false, "Elasticsearch answered: unavailable shards, no master"),
            new StillRunsRow(500, true, false, "Elasticsearch answered with its error"),
            new StillRunsRow(429, true, false, "Elasticsearch rejected it: not run"),
            new StillRunsRow(429, false, false, "a 4xx: refused, not run"),
            new StillRunsRow(413, false, false, "too large: not run"),
            new StillRunsRow(400, true, false, "refused: not run"),
            new StillRunsRow(200, false, false, "answered"));

    @Test
    void aFailureElasticsearchDidNotAnswerItselfMayStillRunThere() {
        for (StillRunsRow row : STILL_RUNS) {
            assertThat(StatusPolicy.mayStillRun(row.status(), row.elasticsearchError()))
                    .as("HTTP " + row.status() + (row.elasticsearchError() ? " with" : " without")
                            + " Elasticsearch's error body: " + row.why())
                    .isEqualTo(row.mayStillRun());
        }
    }

    /** The real REST client's exceptions: the body tells Elasticsearch's own 5xx from a proxy's. */
    @Test
    void theBodyOfAFailedRequestTellsWhoAnswered() throws Exception {
        String esError = "{\"error\":{\"root_cause\":[],\"type\":\"unavailable_shards_exception\","
                + "\"reason\":\"primary shard is not active\"},\"status\":503}";
        try (CannedElasticsearch node = new CannedElasticsearch(
                path -> switch (path) {
                    case "/es" -> new Answer(503, esError);
                    case "/lb" -> new Answer(503, "<html><body>503 Service Unavailable</body></html>");
                    case "/gateway" -> new Answer(504, "<html><body>504 Gateway Time-out</body></html>");
                    default -> new Answer(400, "{\"error\":\"bad\",\"status\":400}");
                },
                null)) {
            assertThat(StatusPolicy.mayStillRun(failureOf(node, "/es"))).isFalse();
            assertThat(StatusPolicy.mayStillRun(failureOf(node, "/lb"))).isTrue();
            assertThat(StatusPolicy.mayStillRun(failureOf(node, "/gateway"))).isTrue();
            assertThat(StatusPolicy.mayStillRun(failureOf(node, "/bad"))).isFalse();
        }
        assertThat(StatusPolicy.mayStillRun(new SocketTimeoutException("timed out")))
                .isTrue();
    }

    private static Exception failureOf(CannedElasticsearch node, String path) {
        try {
            node.client().performRequest(new Request("POST", path));
        } catch (Exception e) {
            return e;
        }
        throw new AssertionError(path + " answered 2xx");
    }

    @Test
    void rejectionsAreToldFromUnavailability() {
        assertThat(StatusPolicy.rejected(429, null)).isTrue();
        assertThat(StatusPolicy.rejected(500, "es_rejected_execution_exception"))
                .isTrue();
        assertThat(StatusPolicy.rejected(503, "unavailable_shards_exception")).isFalse();
    }
}
