package io.kes.connector;

import org.apache.flink.annotation.PublicEvolving;

/**
 * A write Elasticsearch refused for good (a 4xx that retrying cannot fix), with its reason.
 *
 * @param operation the operation as it was sent
 * @param status    the item's HTTP status (400, 404, ...)
 * @param errorType Elasticsearch's error type, e.g. {@code document_parsing_exception}
 * @param reason    Elasticsearch's reason, e.g. "failed to parse field [level] of type [long]"
 */
@PublicEvolving
public record FailedOperation(DocumentOperation operation, int status, String errorType, String reason) {

    public String describe() {
        return operation.opType().bulkAction() + " of " + operation.index() + "/" + operation.id() + " from "
                + operation.origin() + " failed with " + status + " " + errorType + ": " + reason;
    }
}
