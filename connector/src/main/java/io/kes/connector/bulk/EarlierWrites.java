package io.kes.connector.bulk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.connector.SinkSettings;
import io.kes.connector.cluster.BulkTasks;
import io.kes.connector.cluster.NodeClients;
import io.kes.connector.cluster.NodeRestarts;
import io.kes.connector.cluster.SentTo;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.apache.flink.annotation.VisibleForTesting;
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
 * <p>The cluster's listing misses a node cut off from the cluster (frozen, partitioned, dropped by
 * the master): it is not a failure there, yet it may still hold a bulk and apply it once it
 * rejoins, its shard requests retried on the new primaries. A writer that closes with bulks
 * unanswered therefore names their nodes ({@link #leftOn(String, Collection)}), and a writer of
 * the same job that opens later in this process (Flink restarts a failed region in place) asks
 * each of them for its own tasks, through a client of that node alone, and waits for its answer:
 * a node that does not answer may still run one. Connection refused is an answer: no process
 * listens there. So is a silent address whose node (as recorded with the bulk) the cluster now
 * lists as a new process publishing another address: it came back elsewhere and runs none of the
 * bulks sent to the old one ({@link NodeRestarts#gone}). A writer in another process (the job restarted from its checkpoint as a new
 * process, or a task placed on another TaskManager) does not know those nodes; {@code version:
 * kafka-offset} closes that gap.
 *
 * <p>Nodes that fail the cluster's listing (its {@code node_failures}) are left out on purpose:
 * nothing says they hold a bulk of this job. This wait is best effort: after {@code maxWait} the
 * writer writes anyway, with a warning.
 */
final class EarlierWrites {

    private static final Logger LOG = LoggerFactory.getLogger(EarlierWrites.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long POLL_MILLIS = 200;

    /**
     * Per job tag, the nodes where writers of this process left bulks that had no answer yet when
     * they closed: static, so that the writer Flink starts in place of a failed one finds them.
     */
    private static final Map<String, Set<SentTo>> LEFT_ON = new ConcurrentHashMap<>();

    /** Addresses whose own listing another node answered, warned about once. */
    private static final Set<String> ANSWERED_BY_ANOTHER = ConcurrentHashMap.newKeySet();

    private EarlierWrites() {}

    /** The {@code X-Opaque-Id} of a job's bulks (printable ASCII: it is an HTTP header). */
    static String tag(String jobName) {
        return "kes/" + jobName.replaceAll("[^\\x20-\\x7e]", "_");
    }

    /** A closing writer of job {@code tag} left bulks without an answer on these nodes. */
    static void leftOn(String tag, Collection<SentTo> nodes) {
        if (!nodes.isEmpty()) {
            LEFT_ON.computeIfAbsent(tag, t -> ConcurrentHashMap.newKeySet()).addAll(nodes);
            LOG.info(
                    "Bulks of this writer had no answer yet from {} when it closed: a writer of {} that opens next in this "
                            + "process waits until those nodes no longer run them",
                    nodes,
                    tag);
        }
    }

    /** The nodes writers of job {@code tag} left bulks on, not yet known to have finished them. */
    static Set<SentTo> leftOn(String tag) {
        Set<SentTo> nodes = LEFT_ON.get(tag);
        return nodes == null ? Set.of() : Set.copyOf(nodes);
    }

    /**
     * Waits up to {@code maxWait} for the tasks tagged {@code tag} that run now to finish: those
     * the cluster lists, and those of the nodes a closed writer of this job left bulks on.
     */
    static void awaitGone(RestClient client, SinkSettings settings, String tag, Duration maxWait)
            throws InterruptedException {
        Set<SentTo> nodes = leftOn(tag);
        Map<String, Listing> sources = new LinkedHashMap<>();
        sources.put("the cluster", new ClusterListing(client, tag, settings.socketTimeout()));
        try (NodeClients nodeClients = new NodeClients(settings)) {
            for (SentTo node : nodes) {
                RestClient nodeClient = nodeClients.of(node.address());
                sources.put(
                        node.address().toHostString(),
                        () -> nodeListing(nodeClient, client, node, tag, settings.socketTimeout()));
            }
            awaitGone(sources, tag, maxWait, System::nanoTime, Thread::sleep);
            // finished, or waited for as long as kes waits (not when interrupted: the next writer waits again)
            Set<SentTo> left = LEFT_ON.get(tag);
            if (left != null) {
                left.removeAll(nodes);
            }
        } catch (IOException closing) {
            LOG.debug("Closing the clients of single nodes: {}", closing.toString());
        }
    }

    /** Where a job's bulk tasks are listed: the ids running now ({@code node:id}), or null for no answer. */
    interface Listing {
        Set<String> running() throws InterruptedException;
    }

    /** Sleeps on the calling thread. */
    interface Sleeper {
        void sleep(long millis) throws InterruptedException;
    }

    /**
     * The wait itself. Each source's first answer names the tasks to wait for there (not those
     * sibling writers start later); its later answers drop those that ended. Done when every
     * source answered once and none of those tasks runs. Returns false after {@code maxWait}.
     */
    @VisibleForTesting
    static boolean awaitGone(
            Map<String, Listing> sources, String tag, Duration maxWait, LongSupplier nanoTime, Sleeper sleeper)
            throws InterruptedException {
        Map<String, Set<String>> watched = new LinkedHashMap<>();
        long started = nanoTime.getAsLong();
        long deadline = started + maxWait.toNanos();
        boolean announced = false;
        while (true) {
            for (Map.Entry<String, Listing> source : sources.entrySet()) {
                Set<String> now = source.getValue().running();
                if (now != null) {
                    watched.computeIfAbsent(source.getKey(), first -> new TreeSet<>(now))
                            .retainAll(now);
                }
            }
            int running = watched.values().stream().mapToInt(Set::size).sum();
            List<String> silent = new ArrayList<>(sources.keySet());
            silent.removeAll(watched.keySet());
            if (running == 0 && silent.isEmpty()) {
                if (announced) {
                    LOG.info(
                            "The earlier run's bulk tasks ({}) ended after {} ms; writing",
                            tag,
                            (nanoTime.getAsLong() - started) / 1_000_000);
                }
                return true;
            }
            if (nanoTime.getAsLong() - deadline > 0) {
                LOG.warn(
                        "{} bulk tasks of an earlier run ({}) still run after {}{}; writing anyway. If they are applied "
                                + "after this run's writes of the same ids, those ids keep an older value until their next write.",
                        running,
                        tag,
                        maxWait,
                        silent.isEmpty() ? "" : ", and " + silent + " did not answer");
                return false;
            }
            if (!announced) {
                announced = true;
                LOG.info(
                        "Waiting for {} bulk task(s) of an earlier run of this job ({}) to finish in Elasticsearch{} before writing",
                        running,
                        tag,
                        silent.isEmpty() ? "" : ", and for " + silent + " to say whether it still runs any");
            }
            sleeper.sleep(POLL_MILLIS);
        }
    }

    /**
     * The cluster's listing. When the first one fails (no {@code monitor} privilege, no answer),
     * the writer says so and does not wait for it; a later one that fails is asked again.
     */
    private static final class ClusterListing implements Listing {
        private final RestClient client;
        private final String tag;
        private final Duration socketTimeout;
        private boolean answeredOnce;

        ClusterListing(RestClient client, String tag, Duration socketTimeout) {
            this.client = client;
            this.tag = tag;
            this.socketTimeout = socketTimeout;
        }

        @Override
        public Set<String> running() {
            try (InputStream in = client.performRequest(listRequest(socketTimeout))
                    .getEntity()
                    .getContent()) {
                answeredOnce = true;
                return TaggedBulks.parse(in, tag).ids();
            } catch (IOException e) {
                if (answeredOnce) {
                    return null;
                }
                answeredOnce = true;
                LOG.warn(
                        "Cannot list Elasticsearch tasks ({}): bulks of an earlier run of this job are not waited for.{}",
                        e instanceof ResponseException r
                                ? "HTTP " + r.getResponse().getStatusLine().getStatusCode()
                                : e.toString(),
                        e instanceof ResponseException
                                ? " Grant kes the cluster privilege 'monitor' to close that gap."
                                : "");
                return Set.of();
            }
        }
    }

    /**
     * One node's own listing; null while it does not answer. A refused connection answers: none;
     * so does a node whose id the cluster ({@code client}) lists as a new process listening
     * elsewhere ({@link NodeRestarts#gone}).
     */
    private static Set<String> nodeListing(
            RestClient nodeClient, RestClient client, SentTo node, String tag, Duration socketTimeout) {
        try (InputStream in = nodeClient
                .performRequest(nodeListRequest(socketTimeout))
                .getEntity()
                .getContent()) {
            JsonNode answer = JSON.readTree(in);
            String another = BulkTasks.answeredByAnother(answer, node);
            if (another != null && !answersFor(client, node, another)) {
                warnAnsweredByAnother(node, another);
                return null;
            }
            return BulkTasks.taggedIds(answer, tag);
        } catch (ResponseException e) {
            int status = e.getResponse().getStatusLine().getStatusCode();
            return status == 401 || status == 403
                    ? Set.of()
                    : null; // no monitor privilege: the cluster's listing said so
        } catch (IOException e) {
            TaggedBulks none = TaggedBulks.notAnsweredBy(e);
            return none.everyNodeAnswered() || restartedElsewhere(client, node) ? Set.of() : null;
        }
    }

    /** Once per address: another node answered the listing asked there. */
    static void warnAnsweredByAnother(SentTo node, String another) {
        if (ANSWERED_BY_ANOTHER.add(node.address().toHostString())) {
            LOG.warn(
                    "Node {} was asked for its own tasks at {}, and node {} answered (a load balancer or proxy in "
                            + "between?): kes waits for {} itself. Give kes the nodes' own addresses (their "
                            + "http.publish_address) so that it can ask each node directly.",
                    node.nodeId(),
                    node.address().toHostString(),
                    another,
                    node.nodeId());
        }
    }

    /** Whether {@code answering} is the process at {@code node}'s address now ({@link NodeRestarts#answersFor}). */
    private static boolean answersFor(RestClient client, SentTo node, String answering) {
        try {
            return NodeRestarts.read(client, node.address().getSchemeName()).answersFor(node, answering);
        } catch (IOException | RuntimeException e) {
            LOG.debug("Could not read the cluster's nodes: {}", e.toString());
            return false;
        }
    }

    private static boolean restartedElsewhere(RestClient client, SentTo node) {
        if (node.nodeId() == null) {
            return false;
        }
        try {
            return NodeRestarts.read(client, node.address().getSchemeName()).gone(node);
        } catch (IOException | RuntimeException e) {
            LOG.debug("Could not read the cluster's nodes: {}", e.toString());
            return false;
        }
    }

    /** The bulk tasks running in the cluster ({@link BulkTasks#listRequest}). */
    static Request listRequest(Duration socketTimeout) {
        return BulkTasks.listRequest(socketTimeout);
    }

    /** Those of the node that receives it only, and that node's name ({@link BulkTasks#nodeListRequest}). */
    static Request nodeListRequest(Duration socketTimeout) {
        return BulkTasks.nodeListRequest(socketTimeout);
    }

    /**
     * The bulk tasks tagged with one job's {@code X-Opaque-Id} that run now ({@code node:id}), and
     * whether every node answered: a node that did not may still run one.
     */
    record TaggedBulks(Set<String> ids, boolean everyNodeAnswered) {

        static TaggedBulks parse(InputStream in, String tag) throws IOException {
            JsonNode answer = JSON.readTree(in);
            return new TaggedBulks(BulkTasks.taggedIds(answer, tag), BulkTasks.everyNodeAnswered(answer));
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
