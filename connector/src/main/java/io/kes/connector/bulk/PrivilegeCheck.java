package io.kes.connector.bulk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.connector.Durability;
import io.kes.connector.SinkSettings;
import io.kes.connector.internal.NonRecoverable;
import io.kes.connector.routing.ServerInfo;
import java.io.IOException;
import java.io.InputStream;
import org.apache.http.entity.ContentType;
import org.apache.http.nio.entity.NStringEntity;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.ResponseException;
import org.elasticsearch.client.RestClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks at open that kes's user or API key holds the cluster privilege the writer relies on, so
 * that a least-privilege setup fails once with a message naming what is missing instead of at
 * every checkpoint. The cluster privilege {@code monitor} covers {@code _cluster/state} (shard
 * prediction, the checkpoint fence's primary terms), {@code _nodes/http} (bulks to the primary's
 * node) and {@code _tasks} (waiting out an earlier run's bulks). Index privileges depend on the
 * indices written; the fence names them when it is refused.
 *
 * <p>Without security (or without the {@code _security} API) there is nothing to check. OpenSearch
 * has no such API (its security plugin has another permission model): there the check is skipped,
 * and a missing permission shows as the 403 of the first call that needs it.
 */
final class PrivilegeCheck {

    private static final Logger LOG = LoggerFactory.getLogger(PrivilegeCheck.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private PrivilegeCheck() {}

    static void atOpen(RestClient client, SinkSettings settings) {
        try {
            ServerInfo server = ServerInfo.fetch(client);
            LOG.info("kes writes to {}", server);
            if (server.openSearch()) {
                return;
            }
        } catch (IOException e) {
            // GET / needs 'monitor' too (403 without it): the check below says so; anything else it meets again
        }
        boolean monitor;
        try {
            Request request = new Request("POST", "/_security/user/_has_privileges");
            request.setEntity(new NStringEntity("{\"cluster\":[\"monitor\"]}", ContentType.APPLICATION_JSON));
            try (InputStream in = client.performRequest(request).getEntity().getContent()) {
                JsonNode root = JSON.readTree(in);
                monitor = root.path("cluster").path("monitor").asBoolean(false);
            }
        } catch (ResponseException e) {
            int status = e.getResponse().getStatusLine().getStatusCode();
            if (status == 401) {
                throw NonRecoverable.error("Elasticsearch refused kes's credentials (HTTP 401): check elasticsearch.username/password "
                        + "or elasticsearch.api_key. " + e.getMessage(), e);
            }
            return; // security off (the API answers 400/404/500 then): nothing to check
        } catch (IOException e) {
            return; // not reachable now: the writer rides that out as usual
        }
        if (monitor) {
            return;
        }
        String missing = "kes's Elasticsearch user or API key lacks the cluster privilege 'monitor', which kes needs to read "
                + "_cluster/state (shard prediction and the checkpoint fence's primary terms), _nodes/http and _tasks";
        if (settings.durability == Durability.CHECKPOINT_FENCE) {
            throw NonRecoverable.error(missing + ". Grant it, or set elasticsearch.durability: request (indices that fsync "
                    + "every request need no fence).");
        }
        LOG.warn("{}. Without it documents go in ordinary (mixed-shard) bulks.", missing);
    }
}
