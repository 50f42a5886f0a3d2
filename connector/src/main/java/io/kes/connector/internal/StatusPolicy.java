package io.kes.connector.internal;

import io.kes.connector.OpType;
import org.apache.flink.annotation.Internal;
import org.elasticsearch.client.ResponseException;

/**
 * What kes does after Elasticsearch answers, in one place: for a whole request (a bulk, a fence's
 * {@code _stats} or {@code _flush}), for one bulk item, and for a request that got no answer. The
 * rules, and why:
 * <ul>
 *   <li>2xx, and for an item: 404 on delete (already gone), 409 on create (an idempotent replay),
 *       a version conflict on a write with an external version (a write of a newer record reached
 *       the document first: this one is stale, a replay) → {@link Action#DONE};
 *   <li>429, {@code es_rejected_execution_exception}, 503 and other 5xx, no answer at all
 *       (connection refused, reset, timed out), and for an item a 409 on upsert (still
 *       conflicting after Elasticsearch's own {@code retry_on_conflict}) or a pipeline the node
 *       does not know (a node that just started has not applied its pipelines yet; one that is
 *       really missing fails the job after {@code retry.max_time}, naming it) → {@link Action#RETRY}
 *       with backoff: the node or shard is busy or moving; the request itself is fine;
 *   <li>401 and 403 → {@link Action#STOP}: credentials or a privilege; no restart or retry can cure
 *       it, only a grant. Except a 403 {@code cluster_block_exception} on an item: an index write
 *       block ({@code PUT <index>/_block/write}, an ILM read-only phase) is no missing privilege,
 *       it refuses that document → permanent;
 *   <li>413 on a request → {@link Action#SPLIT}: the body is over the node's
 *       {@code http.max_content_length}; its halves may pass;
 *   <li>every other 4xx (mapping and parse errors, illegal arguments, a rejected index name) →
 *       {@link Action#PERMANENT}: retrying can never succeed; a document goes to the failure
 *       handler at once, a request fails what sent it.
 * </ul>
 */
@Internal
public final class StatusPolicy {

    /** What to do next. */
    public enum Action {
        DONE,
        RETRY,
        PERMANENT,
        STOP,
        SPLIT
    }

    /** The status of a request that got no answer (connection refused, reset, timed out). */
    public static final int NO_RESPONSE = -1;

    private static final String REJECTED = "es_rejected_execution_exception";

    private StatusPolicy() {}

    /** A whole request answered {@code status} ({@link #NO_RESPONSE}: none came). */
    public static Action ofRequest(int status) {
        if (status >= 200 && status < 300) {
            return Action.DONE;
        }
        if (status == 401 || status == 403) {
            return Action.STOP;
        }
        if (status == 413) {
            return Action.SPLIT;
        }
        if (status == NO_RESPONSE || status == 429 || status >= 500) {
            return Action.RETRY;
        }
        return Action.PERMANENT;
    }

    /** A request failed with {@code failure}: an answer's status, or none. */
    public static Action ofFailure(Exception failure) {
        return ofRequest(statusOf(failure));
    }

    /** The HTTP status of {@code failure}, or {@link #NO_RESPONSE} when the request got no answer. */
    public static int statusOf(Exception failure) {
        return failure instanceof ResponseException re
                ? re.getResponse().getStatusLine().getStatusCode()
                : NO_RESPONSE;
    }

    /** One bulk item answered {@code status} with {@code errorType} and {@code reason} (null: no error). */
    public static Action ofItem(
            int status, String errorType, String reason, OpType opType, boolean externallyVersioned) {
        if (status >= 200 && status < 300) {
            return Action.DONE;
        }
        if (status == 409
                && (opType == OpType.CREATE
                        || (externallyVersioned && "version_conflict_engine_exception".equals(errorType)))) {
            return Action.DONE;
        }
        if (status == 404 && opType == OpType.DELETE && errorType == null) {
            return Action.DONE;
        }
        if (status == 409 && opType == OpType.UPSERT) {
            return Action.RETRY;
        }
        if (status == 429 || status >= 500 || REJECTED.equals(errorType) || pipelineMissing(errorType, reason)) {
            return Action.RETRY;
        }
        if ((status == 401 || status == 403) && !"cluster_block_exception".equals(errorType)) {
            return Action.STOP;
        }
        return Action.PERMANENT;
    }

    /**
     * "pipeline with id [p] does not exist": Elasticsearch's and OpenSearch's words for an item
     * naming a pipeline the node does not know (yet: a node that just started has not applied the
     * cluster state holding its pipelines).
     */
    private static boolean pipelineMissing(String errorType, String reason) {
        return "illegal_argument_exception".equals(errorType)
                && reason != null
                && reason.startsWith("pipeline with id [")
                && reason.endsWith("] does not exist");
    }

    /** Whether a retried answer was a rejection (the node's queues are full) rather than an unavailable shard or node: for metrics and messages. */
    public static boolean rejected(int status, String errorType) {
        return status == 429 || REJECTED.equals(errorType);
    }
}
