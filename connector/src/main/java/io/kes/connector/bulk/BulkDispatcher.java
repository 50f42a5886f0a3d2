package io.kes.connector.bulk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.connector.SinkSettings;
import io.kes.connector.bulk.EarlierWrites.TaggedBulks;
import io.kes.connector.cluster.BulkTasks;
import io.kes.connector.cluster.NodeClients;
import io.kes.connector.cluster.PrimaryNodes;
import io.kes.connector.cluster.SentTo;
import io.kes.connector.cluster.StatusPolicy;
import io.kes.connector.cluster.TargetNodeSelector;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.zip.GZIPOutputStream;
import org.apache.http.HttpEntity;
import org.apache.http.HttpHost;
import org.apache.http.entity.ContentType;
import org.apache.http.nio.entity.NByteArrayEntity;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.RequestOptions;
import org.elasticsearch.client.Response;
import org.elasticsearch.client.ResponseListener;
import org.elasticsearch.client.RestClient;

/**
 * Sends a bulk's current body as one {@code _bulk}, to the node that holds its shard's primary
 * where that is known, else to one configured host, and to that node only; hands the parsed
 * response (or the failure) to the task thread. The response is parsed on the REST client's I/O
 * thread; nothing else happens there.
 */
final class BulkDispatcher implements BulkTransport {

    private static final ContentType NDJSON = ContentType.create("application/x-ndjson");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final RestClient client;
    private final TargetNodeSelector selector;
    private final PrimaryNodes primaryNodes;
    private final TaskMailbox mailbox;
    private final BulkMetrics metrics;
    private final boolean gzip;
    private final RequestOptions requestOptions;
    private final String opaqueId;
    private final Duration socketTimeout;
    /** To ask one node for its own tasks: the shared client may hand the question to another node. */
    private final NodeClients nodeClients;

    BulkDispatcher(
            SinkSettings settings,
            RestClient client,
            TargetNodeSelector selector,
            TaskMailbox mailbox,
            BulkMetrics metrics,
            int subtaskIndex,
            String opaqueId) {
        this.client = client;
        this.selector = selector;
        // Behind a path prefix the cluster sits behind a proxy: its nodes' own addresses are not the way in.
        this.primaryNodes = settings.primaryNodeRouting() && settings.shardGrouping() && settings.pathPrefix() == null
                ? new PrimaryNodes(client, settings, "kes-primary-nodes-" + subtaskIndex)
                : null;
        this.mailbox = mailbox;
        this.metrics = metrics;
        this.gzip = settings.gzip();
        this.opaqueId = opaqueId;
        this.socketTimeout = settings.socketTimeout();
        this.nodeClients = new NodeClients(settings);
        RequestOptions.Builder options = RequestOptions.DEFAULT.toBuilder();
        options.addHeader("X-Opaque-Id", opaqueId); // EarlierWrites finds this job's bulks by it
        if (gzip) {
            options.addHeader("Content-Encoding", "gzip");
        }
        this.requestOptions = options.build();
    }

    @Override
    public SentTo dispatch(BulkInFlight bulk, Outcomes outcomes) {
        Request request = new Request("POST", "/_bulk");
        request.addParameter("filter_path", BulkResponse.FILTER_PATH);
        BulkBody sent = bulk.body;
        byte[] bytes = sent.array();
        int length = sent.sizeInBytes();
        if (gzip) {
            bytes = gzip(bytes, length);
            length = bytes.length;
        }
        request.setOptions(requestOptions.toBuilder()
                .setHttpAsyncResponseConsumerFactory(AnswerBuffer.expecting(sent.itemCount(), bulk.slot.index))
                .build());
        // An NIO entity hands the whole body to the socket: a plain ByteArrayEntity goes through a
        // 4 KB copy buffer, one event-loop turn and one write syscall per 4 KB (~250 per bulk).
        request.setEntity(new NByteArrayEntity(bytes, 0, length, NDJSON));
        metrics.bulksSent.inc();
        metrics.bytesOut.inc(length);
        ResponseListener listener = listenerFor(bulk, sent, outcomes);
        HttpHost primary = nodeOf(bulk.slot);
        if (primary != null) {
            metrics.bulksToPrimaryNode.inc();
        }
        // One node per attempt, and the one it really went to (a configured host when the primary
        // is not known or not living): the client's own failover would send a second copy behind
        // kes's back, and a wait for a late copy must ask the node that holds it.
        HttpHost went = selector.sendTo(primary, () -> client.performRequestAsync(request, listener));
        // which process that node is (as of the last read of the nodes), for a wait should it fall silent
        return went == null ? null : primaryNodes != null ? primaryNodes.sentTo(went) : SentTo.address(went);
    }

    /**
     * The node a bulk of {@code slot} goes to: the one holding its shard's primary, when known and
     * reachable; null sends it to the configured hosts.
     */
    @Override
    public HttpHost nodeOf(Slot slot) {
        return primaryNodes == null || slot.index == null ? null : primaryNodes.primaryOf(slot.index, slot.shard);
    }

    /**
     * The cluster's listing, and with {@code node}, that node's own: a node cut off from the
     * cluster (frozen, partitioned) is not in the cluster's listing, yet it may still hold the bulk
     * and apply it once it rejoins, its shard requests retried on the new primaries.
     */
    @Override
    public void listTaggedBulks(SentTo node, Consumer<TaggedBulks> listed, IntConsumer failedWithStatus) {
        client.performRequestAsync(
                EarlierWrites.listRequest(socketTimeout),
                onTaskThread(
                        in -> TaggedBulks.parse(in, opaqueId),
                        cluster -> {
                            if (node == null) {
                                listed.accept(cluster);
                            } else {
                                askNode(node, own -> listed.accept(cluster.and(own)));
                            }
                        },
                        failure -> failedWithStatus.accept(StatusPolicy.statusOf(failure)),
                        "kes bulk tasks listed"));
    }

    private void askNode(SentTo node, Consumer<TaggedBulks> listed) {
        nodeClients
                .of(node.address())
                .performRequestAsync(
                        EarlierWrites.nodeListRequest(socketTimeout),
                        onTaskThread(
                                JSON::readTree,
                                answer -> ownListing(node, answer, listed),
                                failure -> {
                                    TaggedBulks none = TaggedBulks.notAnsweredBy(failure);
                                    if (none.everyNodeAnswered() || primaryNodes == null) {
                                        listed.accept(none);
                                    } else {
                                        askWhetherGone(node, listed);
                                    }
                                },
                                "kes bulk tasks listed by " + node.address().toHostString()));
    }

    /**
     * A node's own listing counts only when that node answered it: behind a load balancer another
     * node may answer, which runs none of the bulks sent to this one; then it counts as no answer,
     * unless that other node is the one the cluster now lists at the address (it came back there
     * under a new id).
     */
    private void ownListing(SentTo node, JsonNode answer, Consumer<TaggedBulks> listed) {
        String another = BulkTasks.answeredByAnother(answer, node);
        TaggedBulks own = new TaggedBulks(BulkTasks.taggedIds(answer, opaqueId), BulkTasks.everyNodeAnswered(answer));
        if (another == null || primaryNodes == null) {
            listed.accept(another == null ? own : new TaggedBulks(Set.of(), false));
            return;
        }
        primaryNodes.askWhetherAnswersFor(
                node,
                another,
                answers -> mailbox.run(
                        () -> {
                            if (!answers) {
                                EarlierWrites.warnAnsweredByAnother(node, another);
                            }
                            listed.accept(answers ? own : new TaggedBulks(Set.of(), false));
                        },
                        "kes asked who answers at " + node.address().toHostString()));
    }

    /**
     * The node is silent at the address the bulk went to: the cluster may list its id as a new
     * process listening elsewhere (it came back under another address), which runs none of the
     * bulks sent to the old one. Then the silence counts as "none"; otherwise as no answer.
     */
    private void askWhetherGone(SentTo node, Consumer<TaggedBulks> listed) {
        primaryNodes.askWhetherGone(
                node,
                gone -> mailbox.run(
                        () -> listed.accept(new TaggedBulks(Set.of(), gone)),
                        "kes asked whether " + node.address().toHostString() + " restarted"));
    }

    private ResponseListener listenerFor(BulkInFlight bulk, BulkBody sent, Outcomes outcomes) {
        int expectedItems = sent.itemCount();
        return onTaskThread(
                new BodyParser<BulkResponse>() {
                    @Override
                    public BulkResponse parse(InputStream body) throws IOException {
                        return BulkResponse.parse(body, expectedItems);
                    }

                    @Override
                    public BulkResponse parse(HttpEntity entity) throws IOException {
                        return entity instanceof AnswerBuffer.Body read
                                ? BulkResponse.parse(read.array(), read.length(), expectedItems)
                                : BodyParser.super.parse(entity);
                    }
                },
                parsed -> outcomes.onResponse(bulk, sent, parsed),
                failure -> outcomes.onRequestFailure(bulk, sent, failure),
                "kes bulk response");
    }

    /** Reads a response's body. */
    private interface BodyParser<T> {
        T parse(InputStream body) throws IOException;

        default T parse(HttpEntity entity) throws IOException {
            try (InputStream in = entity.getContent()) {
                return parse(in);
            }
        }
    }

    /**
     * A listener that parses the answer on the REST client's I/O thread and hands the result, or
     * the failure (a body that cannot be parsed included), to the task thread.
     */
    private <T> ResponseListener onTaskThread(
            BodyParser<T> parser, Consumer<T> parsed, Consumer<Exception> failed, String what) {
        return new ResponseListener() {
            @Override
            public void onSuccess(Response response) {
                T result;
                try {
                    result = parser.parse(response.getEntity());
                } catch (Exception e) {
                    onFailure(e);
                    return;
                }
                mailbox.run(() -> parsed.accept(result), what);
            }

            @Override
            public void onFailure(Exception exception) {
                mailbox.run(() -> failed.accept(exception), what + ": failed");
            }
        };
    }

    @Override
    public void close() throws IOException {
        if (primaryNodes != null) {
            primaryNodes.close();
        }
        try {
            nodeClients.close();
        } finally {
            client.close();
        }
    }

    private static byte[] gzip(byte[] bytes, int length) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(length / 4, 64));
        try (GZIPOutputStream gz = new GZIPOutputStream(out, 64 * 1024)) {
            gz.write(bytes, 0, length);
        } catch (IOException e) {
            throw new IllegalStateException("gzip of an in-memory buffer failed", e);
        }
        return out.toByteArray();
    }
}
