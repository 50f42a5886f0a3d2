package io.kes.connector.fence;

import io.kes.connector.cluster.ClusterMetadataClient;
import io.kes.connector.cluster.IndexMetadata;
import io.kes.connector.cluster.PrimaryShardState;
import io.kes.connector.cluster.PrimaryShardState.ShardSeqNos;
import io.kes.connector.internal.Backoff;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.annotation.Internal;
import org.elasticsearch.client.ResponseException;
import org.elasticsearch.client.RestClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What makes async-translog writes safe, run for each checkpoint once the bulks before its barrier
 * are done:
 *
 * <ol>
 *   <li>Wait until the translog of every in-sync copy (primary and replicas) of every shard written
 *       holds those writes on disk. An async index fsyncs its translog by itself every
 *       {@code index.translog.sync_interval} (5 s by default); a copy's {@code _stats}
 *       {@code seq_no.local_checkpoint} is its <em>persisted</em> local checkpoint, and the primary's
 *       {@code global_checkpoint} the lowest one of the in-sync copies. Once it reaches the
 *       {@code max_seq_no} read after the writes were acknowledged, they survive the crash of every
 *       copy but one, whichever copy is promoted. Where the global checkpoint lags (the primary
 *       learns a copy's persisted checkpoint only with the next write to it or a periodic sync),
 *       every copy's own checkpoint in the same answer counts, if the answer lists as many copies
 *       as the cluster state has in sync. Waiting costs Elasticsearch nothing; a {@code _flush} (a
 *       Lucene commit per checkpoint) cost it about a fifth more CPU per document, measured.
 *       Indices that sync less often than {@code elasticsearch.fence_sync_wait}, or do not catch up
 *       within it, are flushed instead (a flush reaches every copy and reports back to the
 *       primary: its global checkpoint moves at once).</li>
 *   <li>Read the shards' primary terms and compare them with the terms the writes were acknowledged
 *       under. A term that moved means the primary was replaced after acknowledging writes it may
 *       not have synced: fail, so the job restores the previous checkpoint and replays; idempotent
 *       ids make the replay harmless. The terms are read after the wait, so that a failover during
 *       it is caught too: a persisted checkpoint only vouches for writes if the copy that reports it
 *       is the one that acknowledged them.</li>
 * </ol>
 *
 * <p>A failover between the wait and the term read fails a checkpoint that was in fact safe: a
 * replay too many, never a loss.
 */
@Internal
public final class CheckpointFence implements AutoCloseable {

    /** The checkpoint must not complete: writes since the last one may be lost. */
    public static final class FenceException extends IOException {
        private static final long serialVersionUID = 1L;

        FenceException(String message) {
            super(message);
        }
    }

    /**
     * How often the fence looks at the persisted checkpoints while it waits: a fifth of the sync
     * interval (1 s for Elasticsearch's default 5 s), at least this often. Every look is a
     * {@code _stats} call that costs the node CPU; a slower look adds at most its period to the
     * checkpoint, never to the writes.
     */
    private static final long MIN_POLL_MILLIS = 100;

    private static final Logger LOG = LoggerFactory.getLogger(CheckpointFence.class);
    private static final String FAILURE_STORE_PREFIX = ".fs-";

    private final ClusterMetadataClient metadata;
    private final PrimaryShardState shards;
    private final FenceRetries retries;
    private final Duration maxSyncWait;
    /** Woken by {@link #endOfInput()} while {@link #awaitPersisted} waits for the next look. */
    private final Object syncWait = new Object();

    private volatile boolean inputEnded;

    private final EndOfInputFlushes.Member endOfInput;

    /**
     * @param endOfInput the writers this fence ends a bounded input with ({@link EndOfInputFlushes};
     *                   a group of one flushes at once)
     */
    public CheckpointFence(
            RestClient client,
            Backoff backoff,
            Duration maxRetryTime,
            Duration maxSyncWait,
            EndOfInputFlushes.Member endOfInput) {
        this.endOfInput = endOfInput;
        this.metadata = new ClusterMetadataClient(client);
        this.shards = new PrimaryShardState(client);
        this.retries = new FenceRetries(backoff, maxRetryTime.toMillis());
        this.maxSyncWait = maxSyncWait;
    }

    /**
     * Waits until the acknowledged writes are durable and checks the primary terms. While
     * Elasticsearch cannot be reached (or answers 429/5xx) it retries with backoff for up to
     * {@code retry.max_time}, as writes do: the checkpoint waits rather than fails over a short
     * outage. On success the writes are forgotten and it returns true; on failure they stay, for
     * the next fence.
     *
     * <p>{@code endsInput}: these are the last writes of a bounded input. No later write will share
     * the translog's next sync, so the written indices are flushed at once instead of waited for:
     * once for the job's writers in this process that end together ({@link EndOfInputFlushes}).
     * A check for earlier writes that finds the input ended ({@link #endOfInput()}), or is waiting
     * for a sync when it ends, returns false at once and leaves its writes in {@code acknowledged}:
     * the end of input's check comes next and vouches for them with the same one flush (two
     * flushes, or the wait for a sync, only delayed the job's end).
     */
    public boolean check(AcknowledgedWrites acknowledged, boolean endsInput) throws IOException, InterruptedException {
        if (acknowledged.isEmpty()) {
            return true;
        }
        if (leftToTheEnd(endsInput)) {
            return false;
        }
        Set<String> indices = acknowledged.indices();
        long started = System.nanoTime();
        Set<String> flushed = retries.run(indices, started, () -> {
            try {
                return makeDurable(acknowledged, indices, endsInput, endsInput);
            } catch (ResponseException e) {
                if (endsInput && e.getResponse().getStatusLine().getStatusCode() == 403) {
                    // no 'maintenance' privilege: the end of input waits for the sync, as a checkpoint does
                    return makeDurable(acknowledged, indices, true, false);
                }
                throw e;
            }
        });
        if (flushed == null) {
            return false; // the input ended while it waited
        }
        Map<String, IndexMetadata> now = retries.run(indices, started, () -> metadata.indices(indices));
        for (String index : indices) {
            if (!now.containsKey(index) && index.startsWith(FAILURE_STORE_PREFIX)) {
                // A data stream's failure store: documents its mapping refused. Where the cluster
                // state does not show it by name, failing the fence would fail it again on every
                // replay; its documents are not kes's data, only a record of refusals.
                LOG.warn(
                        "Checkpoint fence: cannot read {} (a data stream's failure store); the documents it took are not fenced",
                        index);
                acknowledged.forget(index);
            }
        }
        String moved = acknowledged.firstMovedShard(now);
        if (moved != null) {
            throw new FenceException(
                    "checkpoint fence: shard " + moved + " changed primary after acknowledging writes that "
                            + "an async translog may not have synced. Failing this checkpoint; the job restarts from the previous "
                            + "one and replays those records (ids make the replay idempotent).");
        }
        if (!flushed.isEmpty()) {
            LOG.debug("Checkpoint fence flushed {} (translog sync slower than {})", flushed, maxSyncWait);
        }
        acknowledged.clear();
        return true;
    }

    /**
     * The end of a bounded job's input: a check for earlier writes that waits for a sync stops, and
     * later ones return at once, all leaving their writes to the end of input's check. Any thread.
     */
    public void endOfInput() {
        synchronized (syncWait) {
            inputEnded = true;
            syncWait.notifyAll();
        }
    }

    /** The writer closes, or its input's end is over: the other writers' end of input no longer waits for this one. */
    @Override
    public void close() {
        endOfInput.close();
    }

    /** Whether writes before the input's end are left to the end of input's check: the input ended meanwhile. */
    private boolean leftToTheEnd(boolean endsInput) {
        return !endsInput && inputEnded;
    }

    /**
     * Waits for the translog syncs, flushes what they do not cover in time (everything at once with
     * {@code flushNow}), and checks that the flush reached every written shard's primary; returns
     * the indices it flushed, or null when the input ended while a check for writes before its
     * end waited ({@link #check}).
     */
    private Set<String> makeDurable(
            AcknowledgedWrites acknowledged, Set<String> written, boolean endsInput, boolean flushNow)
            throws IOException, InterruptedException {
        Set<String> flush = new TreeSet<>();
        Set<String> wait = new TreeSet<>();
        Map<String, IndexMetadata> indices = metadata.indices(written);
        for (String index : written) {
            IndexMetadata meta = indices.get(index);
            if (meta == null) {
                continue; // gone: the term check says so
            }
            (flushNow || meta.translogSyncInterval().compareTo(maxSyncWait) > 0 ? flush : wait).add(index);
        }
        Set<String> present = new TreeSet<>(wait);
        present.addAll(flush);
        // Every write kes had acknowledged has a seq_no at or below the max_seq_no its primary reports now.
        Map<String, long[]> targets = present.isEmpty() ? Map.of() : targets(acknowledged, present, indices);
        Map<String, int[]> inSync = present.isEmpty() ? Map.of() : shards.inSyncCopies(present);
        if (!wait.isEmpty()) {
            long syncMillis = wait.stream()
                    .mapToLong(i -> indices.get(i).translogSyncInterval().toMillis())
                    .max()
                    .orElse(0);
            Set<String> lagging =
                    awaitPersisted(targets, inSync, wait, Math.max(MIN_POLL_MILLIS, syncMillis / 5), endsInput);
            if (!lagging.isEmpty() && leftToTheEnd(endsInput)) {
                return null;
            }
            flush.addAll(lagging);
        }
        if (!flush.isEmpty()) {
            if (endsInput) {
                endOfInput.refreshAndFlush(flush, shards::refreshAndFlush, maxSyncWait.toMillis());
            } else {
                // no refresh mid-run: it would make documents searchable that the index's own interval holds back
                shards.flush(flush);
            }
            requirePersisted(targets, inSync, flush);
        }
        return flush;
    }

    /**
     * Per index, per shard: the seq_no its primary must have persisted for the writes acknowledged
     * so far to be durable; -1 for a shard no write may sit on, {@code Long.MAX_VALUE} for a written
     * shard without a started primary (it cannot be vouched for).
     */
    private Map<String, long[]> targets(
            AcknowledgedWrites acknowledged, Set<String> indices, Map<String, IndexMetadata> metadataOf)
            throws IOException {
        Map<String, Map<Integer, ShardSeqNos>> before = shards.primarySeqNos(indices);
        Map<String, long[]> targets = new HashMap<>();
        for (String index : indices) {
            IndexMetadata meta = metadataOf.get(index);
            long[] target = new long[meta.numberOfShards()];
            for (int shard = 0; shard < target.length; shard++) {
                ShardSeqNos seqNos = before.getOrDefault(index, Map.of()).get(shard);
                target[shard] = acknowledged.baseline(index, shard, meta) == 0
                        ? -1
                        : seqNos == null ? Long.MAX_VALUE : seqNos.maxSeqNo();
            }
            targets.put(index, target);
        }
        return targets;
    }

    /**
     * Waits up to {@code fence_sync_wait} until every written shard's in-sync copies persisted its
     * target, or, for writes before the input's end, until it ends; returns the indices that did not.
     */
    private Set<String> awaitPersisted(
            Map<String, long[]> targets,
            Map<String, int[]> inSync,
            Set<String> indices,
            long pollMillis,
            boolean endsInput)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + maxSyncWait.toNanos();
        Set<String> lagging = new TreeSet<>(indices);
        while (true) {
            Map<String, Map<Integer, ShardSeqNos>> now = shards.primarySeqNos(lagging);
            lagging.removeIf(index -> firstUnpersisted(index, targets, inSync, now) < 0);
            if (lagging.isEmpty() || leftToTheEnd(endsInput) || System.nanoTime() >= deadline) {
                return lagging;
            }
            synchronized (syncWait) {
                if (!leftToTheEnd(endsInput)) {
                    syncWait.wait(Math.min(pollMillis, Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
                }
            }
        }
    }

    /**
     * After a {@code _flush}: Elasticsearch answers one that an unavailable primary missed with 200,
     * {@code failed: 0} and fewer {@code successful} than {@code total} (so do unassigned replicas,
     * which do not matter here); so the written primaries themselves are asked. Throws (and the
     * fence retries, for {@code retry.max_time}) while one has not persisted its writes.
     */
    private void requirePersisted(Map<String, long[]> targets, Map<String, int[]> inSync, Set<String> flushed)
            throws IOException {
        Map<String, Map<Integer, ShardSeqNos>> now = shards.primarySeqNos(flushed);
        for (String index : flushed) {
            int shard = firstUnpersisted(index, targets, inSync, now);
            if (shard >= 0) {
                ShardSeqNos seqNos = now.getOrDefault(index, Map.of()).get(shard);
                throw new IOException("_flush of " + index + " did not reach written shard " + shard + ": "
                        + (seqNos == null
                                ? "it has no started primary"
                                : "its in-sync copies persisted up to seq_no " + seqNos.persistedByAllCopies()
                                        + ", the writes reach " + targets.get(index)[shard]));
            }
        }
    }

    /** The first written shard of {@code index} whose in-sync copies have not all persisted its target, or -1. */
    private static int firstUnpersisted(
            String index,
            Map<String, long[]> targets,
            Map<String, int[]> inSync,
            Map<String, Map<Integer, ShardSeqNos>> now) {
        long[] target = targets.getOrDefault(index, new long[0]);
        int[] copies = inSync.getOrDefault(index, new int[0]);
        Map<Integer, ShardSeqNos> seqNosOf = now.getOrDefault(index, Map.of());
        for (int shard = 0; shard < target.length; shard++) {
            ShardSeqNos seqNos = seqNosOf.get(shard);
            int inSyncCopies = shard < copies.length ? copies[shard] : 0;
            if (target[shard] >= 0 && (seqNos == null || !seqNos.persisted(target[shard], inSyncCopies))) {
                return shard;
            }
        }
        return -1;
    }
}
