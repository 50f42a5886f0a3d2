package io.kes.connector.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.DocumentOperation;
import io.kes.connector.OpType;
import io.kes.connector.cluster.StatusPolicy.Action;
import io.kes.connector.routing.PredictedShard;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ItemOutcomesTest {

    private static BulkBody body(DocumentOperation... ops) {
        BulkBody body = new BulkBody(1024);
        for (DocumentOperation op : ops) {
            body.add(op, PredictedShard.UNKNOWN);
        }
        return body;
    }

    private static BulkResponse response(String... items) throws IOException {
        String json = "{\"items\":[" + String.join(",", items) + "]}";
        return BulkResponse.parse(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), items.length);
    }

    @Test
    void aRetriedWriteTakesTheLaterWritesOfItsIdInTheBulkWithIt() throws IOException {
        BulkBody sent = body(
                DocumentOperation.index("i", "a", "{\"v\":1}"),
                DocumentOperation.index("i", "b", "{\"v\":1}"),
                DocumentOperation.index("i", "a", "{\"v\":2}"));
        ItemOutcomes classified = ItemOutcomes.classify(
                sent,
                response(
                        "{\"index\":{\"status\":429,\"error\":{\"type\":\"es_rejected_execution_exception\",\"reason\":\"full\"}}}",
                        "{\"index\":{\"status\":201}}",
                        "{\"index\":{\"status\":200}}"));

        assertThat(classified.byItem).containsExactly(Action.RETRY, Action.DONE, Action.RETRY);
        assertThat(classified.retry.operations()).containsExactly(sent.operation(0), sent.operation(2));
        assertThat(classified.succeeded).isEqualTo(1);
        assertThat(classified.retriesRejected).isEqualTo(1);
        assertThat(classified.retryCause).startsWith("rejected (429");
    }

    @Test
    void refusedWritesGoToTheFailureHandlerAndAcceptedReplaysCountAsDone() throws IOException {
        BulkBody sent =
                body(DocumentOperation.index("i", "a", "{\"v\":1}"), DocumentOperation.index("i", "b", "{\"v\":1}"));
        ItemOutcomes classified = ItemOutcomes.classify(
                sent,
                response(
                        "{\"index\":{\"status\":400,\"error\":{\"type\":\"document_parsing_exception\",\"reason\":\"bad\"}}}",
                        "{\"index\":{\"status\":201}}"));

        assertThat(classified.retry).isNull();
        assertThat(classified.permanent).hasSize(1);
        assertThat(classified.permanent.get(0).operation()).isEqualTo(sent.document(0));
        assertThat(classified.permanent.get(0).operation().source()).isNotEmpty();
        assertThat(classified.succeeded).isEqualTo(1);
    }

    /**
     * Issue 27 item 14: with {@code version: kafka-offset} a version conflict means a write of a
     * newer record reached the document first: this one is a stale replay, done and counted; the
     * same conflict on a write kes did not version is refused.
     */
    @Test
    void aVersionConflictOnAnExternallyVersionedWriteIsAnAcceptedReplay() throws IOException {
        BulkBody sent = body(
                DocumentOperation.write(OpType.INDEX, "i")
                        .id("a")
                        .source("{\"v\":1}".getBytes(StandardCharsets.UTF_8))
                        .version(41)
                        .build(),
                DocumentOperation.index("i", "b", "{\"v\":1}"));
        String conflict = "{\"index\":{\"status\":409,\"error\":{\"type\":\"version_conflict_engine_exception\","
                + "\"reason\":\"current version [42] is higher or equal to the one provided [41]\"}}}";
        ItemOutcomes classified = ItemOutcomes.classify(sent, response(conflict, conflict));

        assertThat(classified.byItem).containsExactly(Action.DONE, Action.PERMANENT);
        assertThat(classified.replaysAccepted).isEqualTo(1);
    }

    /**
     * Issue 27 item 9: Elasticsearch 9.1+ answers a document its data stream refused and kept in
     * the failure store with a success status and {@code failure_store: used} (the shape of its
     * bulk API). Done (it is kept, nothing to retry), and reported apart for the failure handler.
     */
    @Test
    void aDocumentKeptInAFailureStoreIsDoneAndReportedApart() throws IOException {
        BulkBody sent = body(
                DocumentOperation.create("logs", "a", "{\"n\":\"x\"}".getBytes(StandardCharsets.UTF_8)),
                DocumentOperation.create("logs", "b", "{\"n\":1}".getBytes(StandardCharsets.UTF_8)));
        ItemOutcomes classified = ItemOutcomes.classify(
                sent,
                response(
                        "{\"create\":{\"_index\":\".fs-logs-2026.11.25-000002\",\"status\":201,\"_primary_term\":1,\"result\":\"created\","
                                + "\"failure_store\":\"used\"}}",
                        "{\"create\":{\"_index\":\".ds-logs-2026.11.25-000001\",\"status\":201,\"_primary_term\":1,\"result\":\"created\"}}"));

        assertThat(classified.byItem).containsExactly(Action.DONE, Action.DONE);
        assertThat(classified.permanent).isEmpty();
        assertThat(classified.failureStored).singleElement().satisfies(f -> {
            assertThat(f.operation()).isEqualTo(sent.document(0));
            assertThat(f.errorType()).isEqualTo("failure_store");
            assertThat(f.reason()).contains(".fs-logs-2026.11.25-000002");
        });
    }
}
