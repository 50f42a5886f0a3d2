package io.kes.connector.bulk;

import io.kes.connector.routing.ClusterMetadataClient;
import io.kes.connector.routing.IndexMetadata;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.elasticsearch.client.RestClient;

/**
 * What makes async-translog writes safe: run at each checkpoint after the writer drained. First
 * {@code _flush} every index written since the previous checkpoint (Lucene commit plus translog
 * fsync: acknowledged writes now survive a crash), then read the shards' primary terms and compare
 * them with the terms the writes were acknowledged under. A term that moved means the primary was
 * replaced after acknowledging writes it may not have synced: fail the checkpoint, so Flink
 * restores the previous one and replays; idempotent ids make the replay harmless.
 *
 * <p>A failover between the flush and the term read fails a checkpoint that was in fact safe: a
 * replay too many, never a loss.
 */
final class CheckpointFence {

    /** The checkpoint must not complete: writes since the last one may be lost. */
    static final class FenceException extends IOException {
        private static final long serialVersionUID = 1L;

        FenceException(String message) {
            super(message);
        }
    }

    private final ClusterMetadataClient metadata;

    CheckpointFence(RestClient client) {
        this.metadata = new ClusterMetadataClient(client);
    }

    void check(AcknowledgedWrites acknowledged) throws IOException {
        if (acknowledged.isEmpty()) {
            return;
        }
        Set<String> indices = acknowledged.indices();
        metadata.flush(indices);
        Map<String, long[]> terms = new HashMap<>();
        for (Map.Entry<String, IndexMetadata> e : metadata.indices(indices).entrySet()) {
            terms.put(e.getKey(), e.getValue().primaryTerms());
        }
        String moved = acknowledged.firstMovedShard(terms);
        if (moved != null) {
            throw new FenceException("checkpoint fence: shard " + moved + " changed primary after acknowledging writes that "
                    + "an async translog may not have synced. Failing this checkpoint; the job restarts from the previous "
                    + "one and replays those records (ids make the replay idempotent).");
        }
        acknowledged.clear();
    }
}
