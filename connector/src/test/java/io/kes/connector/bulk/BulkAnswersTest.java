package io.kes.connector.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.DocumentOperation;
import io.kes.connector.fence.Epochs;
import io.kes.connector.routing.PredictedShard;
import io.kes.connector.testing.CannedElasticsearch;
import io.kes.connector.testing.CannedElasticsearch.Answer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.ResponseException;
import org.junit.jupiter.api.Test;

/** What a bulk's answer does next: each row an answer and the step it leads to, decided without side effects. */
class BulkAnswersTest {

    private static final String ES_REJECTED =
            "{\"error\":{\"type\":\"es_rejected_execution_exception\",\"reason\":\"full\"},\"status\":429}";
    private static final String ES_UNAVAILABLE =
            "{\"error\":{\"type\":\"cluster_block_exception\",\"reason\":\"no master\"},\"status\":503}";
    private static final String PROXY_PAGE = "<html><body><h1>504 Gateway Time-out</h1></body></html>";

    /** One failed request: how it failed, how many documents it had, and the step that follows. */
    private record FailureRow(
            String what, Exception failure, int documents, Class<? extends NextStep> expected, String saying) {}

    @Test
    void eachFailedRequestLeadsToItsStep() throws Exception {
        List<FailureRow> rows = List.of(
                new FailureRow("too large, several documents", answered(413, ""), 3, NextStep.Split.class, null),
                new FailureRow(
                        "too large, one document", answered(413, ""), 1, NextStep.HandOver.class, "the document alone"),
                new FailureRow("credentials refused", answered(401, ""), 2, NextStep.GiveUp.class, "401"),
                new FailureRow("a privilege missing", answered(403, ""), 2, NextStep.GiveUp.class, "lacks a privilege"),
                new FailureRow(
                        "refused as a whole", answered(400, ""), 2, NextStep.GiveUp.class, "refused a whole bulk of 2"),
                new FailureRow(
                        "rejected by Elasticsearch", answered(429, ES_REJECTED), 2, NextStep.Retry.class, "HTTP 429"),
                new FailureRow(
                        "Elasticsearch's own unavailable",
                        answered(503, ES_UNAVAILABLE),
                        2,
                        NextStep.Retry.class,
                        "HTTP 503"),
                new FailureRow(
                        "a proxy's gateway timeout",
                        answered(504, PROXY_PAGE),
                        2,
                        NextStep.AwaitNode.class,
                        "HTTP 504"),
                new FailureRow(
                        "no answer in time",
                        new SocketTimeoutException("60,000 milliseconds timeout"),
                        2,
                        NextStep.AwaitNode.class,
                        "no answer"),
                new FailureRow(
                        "connection refused",
                        new ConnectException("refused"),
                        2,
                        NextStep.AwaitNode.class,
                        "no answer"));
        for (FailureRow row : rows) {
            BulkInFlight bulk = bulkOf(row.documents());
            NextStep next = BulkAnswers.ofRequestFailure(bulk, bulk.body, row.failure());

            assertThat(next).as(row.what()).isInstanceOf(row.expected());
            if (row.saying() != null) {
                assertThat(said(next)).as(row.what()).contains(row.saying());
            }
            assertThat(bulk.body.itemCount())
                    .as(row.what() + ": the decider changes nothing")
                    .isEqualTo(row.documents());
        }
    }

    @Test
    void aSplitKeepsTheDocumentsInTheirOrder() throws Exception {
        BulkInFlight bulk = bulkOf(3);

        NextStep.Split split = (NextStep.Split) BulkAnswers.ofRequestFailure(bulk, bulk.body, answered(413, ""));

        assertThat(split.first().operations()).containsExactly(bulk.body.operation(0));
        assertThat(split.rest().operations()).containsExactly(bulk.body.operation(1), bulk.body.operation(2));
    }

    @Test
    void aRetriedRequestSendsTheSameBodyAgain() throws Exception {
        BulkInFlight bulk = bulkOf(2);

        NextStep.Retry retry =
                (NextStep.Retry) BulkAnswers.ofRequestFailure(bulk, bulk.body, answered(429, ES_REJECTED));

        assertThat(retry.left()).isSameAs(bulk.body);
    }

    @Test
    void aResponseWithItemsToRetrySendsThoseAgainAndOtherwiseThePartIsOver() throws IOException {
        BulkInFlight bulk = bulkOf(2);
        String rejected =
                "{\"index\":{\"status\":429,\"error\":{\"type\":\"es_rejected_execution_exception\",\"reason\":\"full\"}}}";
        String created = "{\"index\":{\"status\":201}}";

        NextStep some = BulkAnswers.ofResponse(ItemOutcomes.classify(bulk.body, response(rejected, created)));
        NextStep none = BulkAnswers.ofResponse(ItemOutcomes.classify(bulk.body, response(created, created)));

        assertThat(some).isInstanceOf(NextStep.Retry.class);
        assertThat(((NextStep.Retry) some).left().operations()).containsExactly(bulk.body.operation(0));
        assertThat(((NextStep.Retry) some).cause()).startsWith("rejected (429");
        assertThat(none).isInstanceOf(NextStep.Done.class);
    }

    /** The step as text, with the whole chain of a give-up's failure (a non-recoverable one wraps the message). */
    private static String said(NextStep next) {
        StringBuilder text = new StringBuilder(next.toString());
        if (next instanceof NextStep.GiveUp giveUp) {
            for (Throwable t = giveUp.failure(); t != null; t = t.getCause()) {
                text.append(" / ").append(t.getMessage());
            }
        }
        return text.toString();
    }

    static BulkInFlight bulkOf(int documents) {
        BulkBody body = new BulkBody(256);
        for (int i = 0; i < documents; i++) {
            body.add(
                    DocumentOperation.index("logs", "id-" + i, "{}".getBytes(StandardCharsets.UTF_8)),
                    PredictedShard.UNKNOWN);
        }
        return new BulkInFlight(body, new Slot("logs", 0), new Epochs().bulkSent());
    }

    private static BulkResponse response(String... items) throws IOException {
        String json = "{\"items\":[" + String.join(",", items) + "]}";
        return BulkResponse.parse(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), items.length);
    }

    /** The REST client's exception for an answer {@code status} with {@code body}, from a real client. */
    private static Exception answered(int status, String body) throws Exception {
        try (CannedElasticsearch node = new CannedElasticsearch(path -> null, new Answer(status, body))) {
            node.client().performRequest(new Request("POST", "/_bulk"));
        } catch (ResponseException e) {
            return e;
        }
        throw new AssertionError("answered 2xx");
    }
}
