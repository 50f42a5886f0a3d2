package io.kes.connector.bulk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.ResponseException;
import org.elasticsearch.client.RestClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits, when a writer opens, until the bulks that earlier runs of the same job sent are no longer
 * running in Elasticsearch. A job that failed or was killed leaves its last bulks behind: the node
 * may still be working through them (queued behind a pause, a GC, a slow disk) when the restored
 * job replays the same records and writes newer ones. Should such an old bulk be applied after
 * the replay's newer write of the same id, it would overwrite it with an older value.
 *
 * <p>Every bulk carries {@code X-Opaque-Id: kes/<job name>}, which Elasticsearch attaches to its
 * tasks. At open the writer lists the bulk tasks with that tag and waits until those tasks are
 * gone (not the ones sibling writers start meanwhile). Listing tasks needs the cluster
 * {@code monitor} privilege; without it, or when the node does not answer, the writer says so and
 * goes on.
 *
 * <p>Nodes that do not answer the listing (its {@code node_failures}) are left out on purpose,
 * although one of them may still run an old bulk, and although {@link AbandonedBulks} waits for
 * them. This wait is best effort: after {@code maxWait} the writer writes anyway. Waiting for a
 * node that does not answer would end the same way, only {@code retry.max_time} later, and a node
 * that is down would add that to every restart while it stays down. {@link AbandonedBulks} has a
 * better choice than writing anyway, failing the job, so it waits; the restart after that failure
 * already spent {@code retry.max_time} waiting for the same node.
 */
final class EarlierWrites {

    private static final Logger LOG = LoggerFactory.getLogger(EarlierWrites.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long POLL_MILLIS = 200;

    private EarlierWrites() {}

    /** The {@code X-Opaque-Id} of a job's bulks (printable ASCII: it is an HTTP header). */
    static String tag(String jobName) {
        return "kes/" + jobName.replaceAll("[^\\x20-\\x7e]", "_");
    }

    /** Waits up to {@code maxWait} for the tasks tagged {@code tag} that run now to finish. */
    static void awaitGone(RestClient client, String tag, Duration maxWait) throws InterruptedException {
        try {
            Set<String> earlier = running(client, tag).ids();
            if (earlier.isEmpty()) {
                return;
            }
            LOG.info(
                    "Waiting for {} bulk tasks of an earlier run of this job ({}) to finish in Elasticsearch before writing",
                    earlier.size(),
                    tag);
            long deadline = System.nanoTime() + maxWait.toNanos();
            while (!(earlier = running(client, tag).among(earlier)).isEmpty()) {
                if (System.nanoTime() > deadline) {
                    LOG.warn(
                            "{} bulk tasks of an earlier run ({}) still run after {}; writing anyway. If they are applied after "
                                    + "this run's writes of the same ids, those ids keep an older value until their next write.",
                            earlier.size(),
                            tag,
                            maxWait);
                    return;
                }
                Thread.sleep(POLL_MILLIS);
            }
        } catch (ResponseException e) {
            LOG.warn(
                    "Cannot list Elasticsearch tasks (HTTP {}): bulks of an earlier run of this job are not waited for. "
                            + "Grant kes the cluster privilege 'monitor' to close that gap.",
                    e.getResponse().getStatusLine().getStatusCode());
        } catch (IOException e) {
            LOG.warn(
                    "Cannot list Elasticsearch tasks ({}): bulks of an earlier run of this job are not waited for.",
                    e.toString());
        }
    }

    private static TaggedBulks running(RestClient client, String tag) throws IOException {
        try (InputStream in = client.performRequest(listRequest()).getEntity().getContent()) {
            return TaggedBulks.parse(in, tag);
        }
    }

    /** Lists the bulk tasks running in the cluster, with their headers. */
    static Request listRequest() {
        Request request = new Request("GET", "/_tasks");
        request.addParameter("actions", "indices:data/write/bulk*");
        request.addParameter("group_by", "none");
        request.addParameter("filter_path", "tasks.node,tasks.id,tasks.headers,node_failures");
        return request;
    }

    /**
     * The bulk tasks tagged with one job's {@code X-Opaque-Id} that run now ({@code node:id}), and
     * whether every node answered: a node that did not may still run one.
     */
    record TaggedBulks(Set<String> ids, boolean everyNodeAnswered) {

        static TaggedBulks parse(InputStream in, String tag) throws IOException {
            JsonNode answer = JSON.readTree(in);
            Set<String> ids = new TreeSet<>();
            for (JsonNode task : answer.path("tasks")) {
                if (tag.equals(task.path("headers").path("X-Opaque-Id").asText(null))) {
                    ids.add(task.path("node").asText() + ":" + task.path("id").asText());
                }
            }
            return new TaggedBulks(ids, answer.path("node_failures").isEmpty());
        }

        /** Both listings: the tasks of either, and whether every node answered both. */
        TaggedBulks and(TaggedBulks other) {
            Set<String> all = new TreeSet<>(ids);
            all.addAll(other.ids);
            return new TaggedBulks(all, everyNodeAnswered && other.everyNodeAnswered);
        }

        /**
         * A node asked for its own tasks did not answer. Connection refused: no process listens
         * there, a bulk it held died with it. Anything else says nothing: a frozen or cut-off node
         * may still run one, and the REST client reports a connect that timed out (a frozen node's
         * full accept queue) as a {@link java.net.ConnectException} too, "Timeout connecting to".
         */
        static TaggedBulks notAnsweredBy(Exception failure) {
            for (Throwable t = failure; t != null; t = t.getCause()) {
                if (t instanceof java.net.ConnectException
                        && t.getMessage() != null
                        && t.getMessage().contains("Connection refused")) {
                    return new TaggedBulks(Set.of(), true);
                }
            }
            return new TaggedBulks(Set.of(), false);
        }

        /** Those of {@code earlier} still running. */
        Set<String> among(Set<String> earlier) {
            Set<String> still = new TreeSet<>(ids);
            still.retainAll(earlier);
            return still;
        }
    }
}
