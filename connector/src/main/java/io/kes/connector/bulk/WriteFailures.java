package io.kes.connector.bulk;

import io.kes.connector.DocumentOperation;
import io.kes.connector.FailedOperation;
import io.kes.connector.NonRecoverable;
import io.kes.connector.cluster.PrivilegeCheck;

/** The writer's errors, each saying what happened and which setting or action fixes it. */
final class WriteFailures {

    private WriteFailures() {}

    /** 401/403 on a bulk: a restart cannot fix it, so it stops the job (no restart loop). */
    static RuntimeException refusedCredentials(int status, Slot slot, Exception cause) {
        if (status == 401) {
            return NonRecoverable.error(
                    PrivilegeCheck.credentialsRefused("a bulk to " + slot.index) + " " + cause.getMessage(), cause);
        }
        String why =
                "the user or API key lacks a privilege: kes needs the index privileges 'create_doc', 'index', 'delete' (or 'write') on "
                        + slot.index;
        return NonRecoverable.error(
                "Elasticsearch refused kes's bulk with HTTP " + status + " (" + why + "): " + cause.getMessage(),
                cause);
    }

    static RuntimeException wholeBulkRefused(int status, int documents, Slot slot, Exception cause) {
        return new IllegalStateException(
                "Elasticsearch refused a whole bulk of " + documents + " documents (" + slot + ") with HTTP " + status
                        + ": " + cause.getMessage(),
                cause);
    }

    static RuntimeException retriesExhausted(BulkInFlight batch, long elapsedMillis, String lastCause) {
        return new IllegalStateException(
                batch.itemsLeft() + " documents (" + batch.slot + ") still failed after " + batch.attempt
                        + " attempts over " + elapsedMillis + " ms, last cause: " + lastCause
                        + ". Elasticsearch is overloaded or unavailable; the job restarts from its last checkpoint."
                        + " Raise retry.max_time to wait longer, or lower bulk.max_in_flight.");
    }

    /** A single document larger than the node accepts can never be written: it goes to the failure handler. */
    static FailedOperation documentTooLarge(DocumentOperation op, int bytesWithActionLine, Exception cause) {
        return new FailedOperation(
                op,
                413,
                "request_entity_too_large",
                "the document alone (" + bytesWithActionLine
                        + " bytes with its action line) is larger than the node's http.max_content_length: "
                        + cause.getMessage());
    }
}
