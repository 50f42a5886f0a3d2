package io.kes.connector.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.connector.OpType;
import java.io.IOException;
import java.io.InputStream;
import org.apache.flink.annotation.Internal;
import org.apache.http.HttpEntity;
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
 *
 * <p>Whether a failed request {@linkplain #mayStillRun may still run} in Elasticsearch: only an
 * answer from Elasticsearch itself says it is over. No answer at all (timed out, reset), a 502 or
 * 504 (a proxy or load balancer gave up on the node, e.g. nginx's {@code proxy_read_timeout} or a
 * cloud load balancer's idle timeout, while the node may hold the request for up to a minute, a
 * reroute waiting for an active primary), and any other 5xx without Elasticsearch's JSON error
 * body (a load balancer's own page) say nothing of the node's work: a copy sent again at once
 * could be overtaken by the held one, which would take its documents back to older values.
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
    private static final ObjectMapper JSON = new ObjectMapper();

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

    /**
     * Whether Elasticsearch may still run a request that failed with {@code failure}: it got no
     * answer, or its answer came from something in between (see the class comment).
     */
    public static boolean mayStillRun(Exception failure) {
        return !(failure instanceof ResponseException re)
                || mayStillRun(statusOf(re), elasticsearchError(re.getResponse().getEntity()));
    }

    /**
     * The rule of {@link #mayStillRun(Exception)}: {@code elasticsearchError} whether the body is
     * Elasticsearch's (or OpenSearch's) error object, {@code {"error": ..., "status": ...}}.
     */
    public static boolean mayStillRun(int status, boolean elasticsearchError) {
        return status == NO_RESPONSE || status == 502 || status == 504 || (status >= 500 && !elasticsearchError);
    }

    /** Whether a failed answer's body is Elasticsearch's JSON error object. */
    private static boolean elasticsearchError(HttpEntity entity) {
        if (entity == null) {
            return false;
        }
        // the REST client buffered it to build the exception's message: it can be read again
        try (InputStream in = entity.getContent()) {
            JsonNode body = JSON.readTree(in);
            return body != null && body.isObject() && body.has("error");
        } catch (IOException | RuntimeException notJson) {
            return false;
        }
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
