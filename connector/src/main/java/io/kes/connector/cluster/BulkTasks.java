package io.kes.connector.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.annotation.Internal;
import org.elasticsearch.client.Request;

/**
 * The {@code _tasks} listings kes reads to know whether a bulk of its job may still run: the
 * cluster's, and one node's own ({@code nodes=_local}), and what their answers say.
 */
@Internal
public final class BulkTasks {

    private static final String BULK_ACTIONS = "indices:data/write/bulk*";
    /** The task of a {@code _tasks} listing, on the node that received the request. */
    private static final String LIST_ACTION = "cluster:monitor/tasks/lists";

    private BulkTasks() {}

    /**
     * Lists the bulk tasks running in the cluster, with their headers. A node that does not answer
     * within half the socket timeout is reported in {@code node_failures}, so that one frozen node
     * does not fail the whole listing.
     */
    public static Request listRequest(Duration socketTimeout) {
        return listRequest(socketTimeout, BULK_ACTIONS);
    }

    private static Request listRequest(Duration socketTimeout, String actions) {
        Request request = new Request("GET", "/_tasks");
        request.addParameter("actions", actions);
        request.addParameter("group_by", "none");
        request.addParameter("filter_path", "tasks.node,tasks.id,tasks.action,tasks.headers,node_failures");
        request.addParameter("timeout", Math.max(1, socketTimeout.toMillis() / 2) + "ms");
        return request;
    }

    /**
     * The same, of the node that receives it only, with the listing's own task: it names the node
     * that answered ({@link #answeredByAnother}), which behind a load balancer may be another.
     */
    public static Request nodeListRequest(Duration socketTimeout) {
        Request request = listRequest(socketTimeout, BULK_ACTIONS + "," + LIST_ACTION);
        request.addParameter("nodes", "_local");
        return request;
    }

    /** The bulk tasks of an answer tagged with {@code X-Opaque-Id: tag}, as {@code node:id}. */
    public static Set<String> taggedIds(JsonNode answer, String tag) {
        Set<String> ids = new TreeSet<>();
        for (JsonNode task : answer.path("tasks")) {
            if (task.path("action").asText("indices:data/write/bulk").startsWith("indices:data/write/bulk")
                    && tag.equals(task.path("headers").path("X-Opaque-Id").asText(null))) {
                ids.add(task.path("node").asText() + ":" + task.path("id").asText());
            }
        }
        return ids;
    }

    /** Whether every node asked answered the listing: one that did not may still run a bulk. */
    public static boolean everyNodeAnswered(JsonNode answer) {
        return answer.path("node_failures").isEmpty();
    }

    /**
     * The node that answered {@code node}'s own listing, when it is another than the one kes
     * recorded for the address it asked (a proxy or load balancer picked it); null when it is
     * that node, or when either is not known (a configured host no node publishes, a listing
     * that does not name its node): then the answer is taken as the node's.
     */
    public static String answeredByAnother(JsonNode answer, SentTo node) {
        if (node.nodeId() == null) {
            return null;
        }
        for (JsonNode task : answer.path("tasks")) {
            String answering = task.path("node").asText(null);
            if (LIST_ACTION.equals(task.path("action").asText()) && answering != null) {
                return answering.equals(node.nodeId()) ? null : answering;
            }
        }
        return null;
    }
}
