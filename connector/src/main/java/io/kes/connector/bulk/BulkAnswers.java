package io.kes.connector.bulk;

import io.kes.connector.FailureHandler;
import io.kes.connector.cluster.StatusPolicy;

/**
 * What a bulk's answer does next, decided and not applied ({@link BulkLifecycle} applies it). A
 * response's items, as {@link ItemOutcomes} classified them, leave the items to retry, if any; a
 * request that failed as a whole is retried, sent in parts (413), waited for (no answer: the node
 * may still run it), handed to the {@link FailureHandler} (a single document too large) or fails
 * the job, as {@link StatusPolicy#ofRequest} says. Pure.
 */
final class BulkAnswers {

    private BulkAnswers() {}

    /** After a response: its items to retry go out again, or the part sent is over. */
    static NextStep ofResponse(ItemOutcomes outcomes) {
        return outcomes.retry != null ? new NextStep.Retry(outcomes.retry, outcomes.retryCause) : NextStep.DONE;
    }

    /** After a request that failed as a whole: {@code sent} is the body of that attempt. */
    static NextStep ofRequestFailure(BulkInFlight bulk, BulkBody sent, Exception exception) {
        int status = StatusPolicy.statusOf(exception);
        return switch (StatusPolicy.ofRequest(status)) {
            case SPLIT -> tooLarge(sent, exception);
            case STOP -> new NextStep.GiveUp(WriteFailures.refusedCredentials(status, bulk.slot, exception));
            case PERMANENT, DONE ->
                new NextStep.GiveUp(WriteFailures.wholeBulkRefused(status, sent.itemCount(), bulk.slot, exception));
            case RETRY ->
                StatusPolicy.mayStillRun(exception) // no answer, or a proxy's 502/504
                        ? new NextStep.AwaitNode(noAnswer(status, bulk, exception))
                        : new NextStep.Retry(sent, "HTTP " + status);
        };
    }

    /**
     * HTTP 413: the body is larger than the node's {@code http.max_content_length}. Split in halves,
     * sent one after the other (the items keep their order); a single document that is still too
     * large can never be written and goes to the failure handler.
     */
    private static NextStep tooLarge(BulkBody sent, Exception exception) {
        if (sent.itemCount() > 1) {
            int half = sent.itemCount() / 2;
            return new NextStep.Split(sent.slice(0, half), sent.slice(half, sent.itemCount()));
        }
        return new NextStep.HandOver(WriteFailures.documentTooLarge(sent.document(0), sent.sizeInBytes(), exception));
    }

    private static String noAnswer(int status, BulkInFlight bulk, Exception exception) {
        return status == StatusPolicy.NO_RESPONSE
                ? "no answer (" + exception + ")"
                : "HTTP " + status + " from " + bulk.sentTo
                        + ", not Elasticsearch's own answer (a proxy or load balancer): the node may still run the bulk";
    }
}
