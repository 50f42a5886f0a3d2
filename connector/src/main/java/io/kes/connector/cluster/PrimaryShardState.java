package io.kes.connector.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.Response;
import org.elasticsearch.client.RestClient;

/**
 * What the checkpoint fence reads and does to the shards kes wrote: how far each primary's
 * translog is fsynced ({@code _stats}), and {@code _flush} for indices that do not sync soon
 * enough by themselves. Blocking calls, at checkpoints only.
 */
@Internal
public final class PrimaryShardState {

    private final MetadataCalls calls;

    public PrimaryShardState(RestClient client) {
        this.calls = new MetadataCalls(client);
    }

    /** Sequence numbers of a primary shard copy: the highest one it assigned, and the highest up to which its translog is fsynced. */
    public record ShardSeqNos(long maxSeqNo, long persistedLocalCheckpoint) {
        public boolean persisted(long seqNo) {
            return persistedLocalCheckpoint >= seqNo;
        }
    }

    /**
     * index → shard → sequence numbers of its primary copy ({@code _stats} at shard level, whose
     * {@code local_checkpoint} is the persisted one: everything up to it survives a crash). Shards
     * without a started primary are left out.
     */
    public Map<String, Map<Integer, ShardSeqNos>> primarySeqNos(Collection<String> indices) throws IOException {
        Request request = new Request("GET", "/" + MetadataCalls.expression(indices) + "/_stats/translog");
        request.addParameter("level", "shards");
        request.addParameter("ignore_unavailable", "true");
        request.addParameter("filter_path", "indices.*.shards.*.routing.primary,indices.*.shards.*.seq_no");
        JsonNode root = calls.get(request).orElse(null);
        Map<String, Map<Integer, ShardSeqNos>> result = new HashMap<>();
        if (root == null) {
            return result;
        }
        for (Map.Entry<String, JsonNode> index : root.path("indices").properties()) {
            Map<Integer, ShardSeqNos> shards = new HashMap<>();
            for (Map.Entry<String, JsonNode> shard :
                    index.getValue().path("shards").properties()) {
                for (JsonNode copy : shard.getValue()) {
                    JsonNode seqNo = copy.path("seq_no");
                    if (copy.path("routing").path("primary").asBoolean(false) && seqNo.has("max_seq_no")) {
                        shards.put(
                                Integer.parseInt(shard.getKey()),
                                new ShardSeqNos(
                                        seqNo.path("max_seq_no").asLong(),
                                        seqNo.path("local_checkpoint").asLong()));
                    }
                }
            }
            result.put(index.getKey(), shards);
        }
        return result;
    }

    /**
     * {@code _flush}: Lucene commit and translog fsync of every shard of these indices. A flush
     * that some shard copies failed answers 200 all the same; their count is in {@code _shards}.
     *
     * @throws IOException also when a shard copy failed to flush
     */
    public void flush(Collection<String> indices) throws IOException {
        Request flush = new Request("POST", "/" + MetadataCalls.expression(indices) + "/_flush");
        flush.addParameter("ignore_unavailable", "true");
        Response response = calls.client().performRequest(flush);
        try (InputStream in = response.getEntity().getContent()) {
            JsonNode shards = MetadataCalls.JSON.readTree(in).path("_shards");
            if (shards.path("failed").asInt(0) > 0) {
                throw new IOException("_flush of " + indices + " failed on "
                        + shards.path("failed").asInt() + " shard copies: " + shards.path("failures"));
            }
        }
    }
}
