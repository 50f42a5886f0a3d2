package io.kes.connector.cluster;

import io.kes.connector.SinkSettings;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.http.HttpHost;
import org.elasticsearch.client.RestClient;

/**
 * A client per node, for a question only that node can answer ("which of this job's bulks do you
 * run?"), made when first needed. The shared client cannot ask it: once a node failed to answer,
 * the shared client skips it for a while and lets another node answer instead, which then speaks
 * only for itself. Not thread-safe: one owner thread.
 */
@Internal
public final class NodeClients implements AutoCloseable {

    private final SinkSettings settings;
    private final Map<HttpHost, RestClient> clients = new HashMap<>();

    public NodeClients(SinkSettings settings) {
        this.settings = settings;
    }

    /** The client that sends only to {@code node}. */
    public RestClient of(HttpHost node) {
        return clients.computeIfAbsent(node, n -> RestClients.forNode(settings, n));
    }

    @Override
    public void close() throws IOException {
        IOException first = null;
        for (RestClient client : clients.values()) {
            try {
                client.close();
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        clients.clear();
        if (first != null) {
            throw first;
        }
    }
}
