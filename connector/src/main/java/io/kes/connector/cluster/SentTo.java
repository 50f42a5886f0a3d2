package io.kes.connector.cluster;

import org.apache.flink.annotation.Internal;
import org.apache.http.HttpHost;

/**
 * The node a bulk went to, as kes knew it when it sent the bulk: the address the request went to
 * and, where kes had read the cluster's nodes ({@link PrimaryNodes}), the id and ephemeral id of
 * the node that published that address. Those two let a wait for a silent address end once that
 * node's process is known to have ended ({@link NodeRestarts#gone}); without them (a configured
 * host that no node publishes, node reads not allowed) only the address's own answer ends it.
 *
 * @param nodeId null when not known
 * @param ephemeralId null when not known
 */
@Internal
public record SentTo(HttpHost address, String nodeId, String ephemeralId) {

    /** An address kes knows no node for. */
    public static SentTo address(HttpHost address) {
        return new SentTo(address, null, null);
    }

    @Override
    public String toString() {
        return address.toString();
    }
}
