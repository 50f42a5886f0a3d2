package io.kes.connector.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.flink.annotation.Internal;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.Response;
import org.elasticsearch.client.ResponseListener;
import org.elasticsearch.client.RestClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the checkpoint fence reads and does to the shards kes wrote: how far the translogs of each
 * shard's in-sync copies are fsynced ({@code _stats}), and {@code _flush} for indices that do not
 * sync soon enough by themselves. Blocking calls, at checkpoints only.
 */
@Internal
public final class PrimaryShardState {

    private static final Logger LOG = LoggerFactory.getLogger(PrimaryShardState.class);

    /** Copy states of a started copy ({@code RELOCATING}: the source of a relocation, still serving). */
    private static final java.util.Set<String> STARTED = java.util.Set.of("STARTED", "RELOCATING");

    private final MetadataCalls calls;

    public PrimaryShardState(RestClient client) {
        this.calls = new MetadataCalls(client);
    }

    /**
     * Sequence numbers of a shard as its primary reports them: the highest one it assigned, the
     * highest up to which its own translog is fsynced ({@code local_checkpoint}), and the highest up
     * to which every in-sync copy's translog is fsynced ({@code global_checkpoint}: the primary
     * computes it from the persisted checkpoints the copies report).
     */
    public record ShardSeqNos(
            long maxSeqNo,
            long persistedLocalCheckpoint,
            long globalCheckpoint,
            int copies,
            long lowestCopyCheckpoint) {

        /** For tests: a shard whose only copy is its primary. */
        public ShardSeqNos(long maxSeqNo, long persistedLocalCheckpoint, long globalCheckpoint) {
            this(maxSeqNo, persistedLocalCheckpoint, globalCheckpoint, 1, persistedLocalCheckpoint);
        }

        /**
         * Whether every in-sync copy of the shard fsynced its translog up to {@code seqNo}, so that
         * it survives the loss of all copies but one: the global checkpoint says so, or every copy
         * the answer lists reported it itself and they are as many as the shard has in-sync copies.
         * The second is the same guarantee, seen sooner: the primary learns a copy's persisted
         * checkpoint only with its next write to it or a periodic sync (measured on Elasticsearch
         * 9.5: an idle shard's global checkpoint stayed behind for 12 to 23 s after its copies had
         * persisted, with replicas and without).
         *
         * @param inSyncCopies the shard's in-sync copies (cluster state), 0 when not known
         */
        public boolean persisted(long seqNo, int inSyncCopies) {
            return Math.min(persistedLocalCheckpoint, globalCheckpoint) >= seqNo
                    || (inSyncCopies > 0 && copies >= inSyncCopies && lowestCopyCheckpoint >= seqNo);
        }

        /** The lowest persisted checkpoint of the in-sync copies, as far as this answer shows it. */
        public long persistedByAllCopies() {
            return Math.min(persistedLocalCheckpoint, globalCheckpoint);
        }
    }

    /**
     * index → per shard, how many in-sync copies it has ({@code in_sync_allocations} of the cluster
     * state: the copies that acknowledged every write the primary acknowledged). Missing indices
     * are left out.
     */
    public Map<String, int[]> inSyncCopies(Collection<String> indices) throws IOException {
        Request request = new Request("GET", "/_cluster/state/metadata/" + MetadataCalls.expression(indices));
        request.addParameter("filter_path", "metadata.indices.*.in_sync_allocations");
        request.addParameter("ignore_unavailable", "true");
        request.addParameter("allow_no_indices", "true");
        JsonNode root = calls.get(request).orElse(null);
        Map<String, int[]> result = new HashMap<>();
        if (root == null) {
            return result;
        }
        for (Map.Entry<String, JsonNode> index :
                root.path("metadata").path("indices").properties()) {
            JsonNode allocations = index.getValue().path("in_sync_allocations");
            int[] copies = new int[allocations.size()];
            for (Map.Entry<String, JsonNode> shard : allocations.properties()) {
                int s = Integer.parseInt(shard.getKey());
                if (s < copies.length) {
                    copies[s] = shard.getValue().size();
                }
            }
            result.put(index.getKey(), copies);
        }
        return result;
    }

    /**
     * index → shard → sequence numbers of its primary copy ({@code _stats} at shard level, whose
     * {@code local_checkpoint} is the persisted one: everything up to it survives a crash of that
     * copy; {@code global_checkpoint} the lowest persisted one of the in-sync copies, on
     * Elasticsearch 8.19, 9.x and OpenSearch alike). Shards without a started primary are left out.
     *
     * <p>Only started copies count towards {@link ShardSeqNos#copies}: the answer lists recovering
     * ones too (a replica being rebuilt, a relocation's target), which could otherwise stand in for
     * an in-sync copy whose own stats failed. An answer with shard failures counts no copies at all:
     * it is partial, and the in-sync count it is compared with was read before it, so only the
     * primary's global checkpoint decides.
     */
    public Map<String, Map<Integer, ShardSeqNos>> primarySeqNos(Collection<String> indices) throws IOException {
        Request request = new Request("GET", "/" + MetadataCalls.expression(indices) + "/_stats/translog");
        request.addParameter("level", "shards");
        request.addParameter("ignore_unavailable", "true");
        request.addParameter(
                "filter_path",
                "_shards.failed,indices.*.shards.*.routing.primary,indices.*.shards.*.routing.state,"
                        + "indices.*.shards.*.seq_no");
        // every started copy is listed (replicas too): its own local_checkpoint is its persisted one
        JsonNode root = calls.get(request).orElse(null);
        Map<String, Map<Integer, ShardSeqNos>> result = new HashMap<>();
        if (root == null) {
            return result;
        }
        boolean partial = root.path("_shards").path("failed").asInt(0) > 0;
        for (Map.Entry<String, JsonNode> index : root.path("indices").properties()) {
            Map<Integer, ShardSeqNos> shards = new HashMap<>();
            for (Map.Entry<String, JsonNode> shard :
                    index.getValue().path("shards").properties()) {
                JsonNode primary = null;
                int copies = 0;
                long lowest = Long.MAX_VALUE;
                for (JsonNode copy : shard.getValue()) {
                    JsonNode seqNo = copy.path("seq_no");
                    if (!seqNo.has("local_checkpoint")) {
                        continue;
                    }
                    if (copy.path("routing").path("primary").asBoolean(false) && seqNo.has("max_seq_no")) {
                        primary = seqNo;
                    }
                    if (partial
                            || !STARTED.contains(
                                    copy.path("routing").path("state").asText())) {
                        continue; // not one the in-sync count can be compared with
                    }
                    copies++;
                    lowest = Math.min(lowest, seqNo.path("local_checkpoint").asLong());
                }
                if (primary != null) {
                    long local = primary.path("local_checkpoint").asLong();
                    shards.put(
                            Integer.parseInt(shard.getKey()),
                            new ShardSeqNos(
                                    primary.path("max_seq_no").asLong(),
                                    local,
                                    // absent only from a server kes does not support: its primary alone
                                    primary.path("global_checkpoint").asLong(local),
                                    copies,
                                    lowest));
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
        Response response = calls.client().performRequest(shardsRequest(indices, "_flush"));
        try (InputStream in = response.getEntity().getContent()) {
            JsonNode shards = MetadataCalls.JSON.readTree(in).path("_shards");
            if (shards.path("failed").asInt(0) > 0) {
                throw new IOException("_flush of " + indices + " failed on "
                        + shards.path("failed").asInt() + " shard copies: " + shards.path("failures"));
            }
        }
    }

    /**
     * {@link #flush} with a {@code _refresh} of the same indices beside it, for the end of a
     * bounded input. Where the writes still sit in the indexing buffer (an index with
     * {@code refresh_interval: -1} holds them all) the flush's commit first writes them as
     * segments, one shard after another on the node's {@code flush} pool (one thread on a 2-core
     * node); the refresh writes them from the {@code refresh} pool meanwhile, so the two pools
     * share the work. Measured at 96 shards after 300,000 documents: 3.7 s for the flush alone,
     * 1.8 s beside a refresh (docs/benchmark.md). The refresh only speeds the flush up: its failure
     * (a role without 'maintenance', a closed index) is ignored. It also makes the documents
     * searchable, which is what the end of a bounded job is waited for.
     */
    public void refreshAndFlush(Collection<String> indices) throws IOException, InterruptedException {
        CompletableFuture<Void> refreshed = new CompletableFuture<>();
        calls.client().performRequestAsync(shardsRequest(indices, "_refresh"), new ResponseListener() {
            @Override
            public void onSuccess(Response response) {
                refreshed.complete(null);
            }

            @Override
            public void onFailure(Exception e) {
                LOG.debug(
                        "_refresh of {} beside the end of input's _flush failed; the flush alone makes the writes durable",
                        indices,
                        e);
                refreshed.complete(null);
            }
        });
        try {
            flush(indices);
        } finally {
            try {
                refreshed.get(); // never left running on the shards once the job reports its end
            } catch (ExecutionException impossible) {
                throw new IllegalStateException(impossible);
            }
        }
    }

    private static Request shardsRequest(Collection<String> indices, String endpoint) {
        Request request = new Request("POST", "/" + MetadataCalls.expression(indices) + "/" + endpoint);
        request.addParameter("ignore_unavailable", "true");
        return request;
    }
}
