package io.kes.connector.bulk;

import io.kes.connector.OpType;

/**
 * What to do with one bulk item, by its status and error type. The rules, and why:
 * <ul>
 *   <li>2xx, 404 on delete (already gone), 409 on create (an idempotent replay), a version conflict
 *       on a write with an external version (a write of a newer record reached the document
 *       first: this one is stale, a replay) → done;
 *   <li>429, {@code es_rejected_execution_exception}, 503, other 5xx, and a 409 on upsert → retry
 *       just that item with backoff (the node or shard is busy or moving; the item itself is fine);
 *   <li>every other 4xx (mapping and parse errors, illegal arguments, a rejected index name) →
 *       permanent: retrying can never succeed, so it goes to the failure handler at once.
 * </ul>
 */
enum ItemOutcome {
    SUCCESS,
    RETRY,
    PERMANENT;

    static ItemOutcome of(int status, String errorType, OpType opType, boolean externallyVersioned) {
        if (status >= 200 && status < 300) {
            return SUCCESS;
        }
        if (status == 409 && (opType == OpType.CREATE
                || (externallyVersioned && "version_conflict_engine_exception".equals(errorType)))) {
            return SUCCESS;
        }
        if (status == 404 && opType == OpType.DELETE && errorType == null) {
            return SUCCESS;
        }
        if (status == 409 && opType == OpType.UPSERT) {
            return RETRY; // still conflicting after Elasticsearch's own retry_on_conflict
        }
        if (status == 429 || status >= 500 || "es_rejected_execution_exception".equals(errorType)) {
            return RETRY;
        }
        return PERMANENT;
    }

    /** A short label for metrics and messages. */
    static String retryCause(int status, String errorType) {
        if (status == 429 || "es_rejected_execution_exception".equals(errorType)) {
            return "rejected";
        }
        return "unavailable";
    }
}
