package io.kes.connector.routing;

import com.fasterxml.jackson.databind.JsonNode;
import io.kes.connector.cluster.ClusterMetadataClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * Per ingest pipeline id, whether it may move documents ({@link PipelineRewrites}: it may set
 * {@code _index}, {@code _routing} or {@code _id}), as last read. A verdict is read again once a
 * minute, in the background given a refresher, while the one read before stays in use. A pipeline
 * that cannot be read counts as moving documents, marked {@linkplain Verdict#unreadable()
 * unreadable} so that what was concluded from it is looked at again soon.
 */
final class PipelineVerdicts {

    /** How long a verdict is trusted before it is read again. */
    static final long READ_AGAIN_AFTER_MILLIS = 60_000;

    /**
     * What a pipeline's definition says: why it may move documents (empty: it does not);
     * {@code unreadable}: it could not be read.
     */
    record Verdict(Optional<String> why, boolean unreadable) {
        boolean movesDocuments() {
            return why.isPresent();
        }
    }

    private record Cached(Verdict verdict, long expiresAtMillis) {}

    private final ClusterMetadataClient metadata;
    private final Map<String, Cached> byPipeline = new HashMap<>();
    private final BackgroundReads<String, Verdict> reads;
    private final FirstReads<String, Verdict> firstReads = new FirstReads<>(e -> new Verdict(
            Optional.of("ingest pipeline could not be read (" + e + "; read again within a minute)"), true));

    /** @param refresher where verdicts already known are read again; null reads on the caller's thread */
    PipelineVerdicts(ClusterMetadataClient metadata, Executor refresher) {
        this.metadata = metadata;
        this.reads = new BackgroundReads<>(refresher);
    }

    /** The verdict on {@code pipeline} as last read; read here the first time, again once a minute. */
    Verdict current(String pipeline, long now) {
        Cached cached = byPipeline.get(pipeline);
        if (cached == null) {
            Verdict first = firstReads.takeDone(pipeline);
            if (first != null) {
                reads.forget(pipeline);
                cached = new Cached(first, now + READ_AGAIN_AFTER_MILLIS);
                byPipeline.put(pipeline, cached);
            }
        }
        Optional<Verdict> fresh = reads.next(
                pipeline, cached != null, cached != null && now >= cached.expiresAtMillis, () -> readNow(pipeline));
        if (fresh.isPresent()) {
            cached = new Cached(fresh.get(), now + READ_AGAIN_AFTER_MILLIS);
            byPipeline.put(pipeline, cached);
        }
        return cached.verdict;
    }

    /**
     * The first read of {@code pipeline} to run, or wait for, without the owner's lock before
     * {@link #current} answers for it without reading on the caller's thread; null when it was
     * read, or its first read is done.
     */
    FirstReads.Pending<Verdict> firstReadOf(String pipeline) {
        return byPipeline.containsKey(pipeline) ? null : firstReads.pending(pipeline, () -> readNow(pipeline));
    }

    /** Reads the verdict on {@code id} now, bypassing the cache; runs on any thread and changes nothing here. */
    Verdict readNow(String id) {
        try {
            Optional<JsonNode> definition = metadata.pipeline(id);
            if (definition.isEmpty()) {
                // Elasticsearch fails each item naming it: nothing lands anywhere
                return new Verdict(Optional.empty(), false);
            }
            return new Verdict(
                    PipelineRewrites.why(id, definition.get(), nested -> {
                        try {
                            return metadata.pipeline(nested);
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    }),
                    false);
        } catch (IOException | RuntimeException e) {
            return new Verdict(
                    Optional.of(
                            "ingest pipeline '" + id + "' could not be read (" + e + "; read again within a minute)"),
                    true);
        }
    }

    /**
     * Forgets the verdicts that expired before {@code cutoff}, and their reads. Not the verdicts
     * merely expired: one being read again stays in use until the read is done.
     */
    void forgetExpiredBefore(long cutoff) {
        byPipeline.values().removeIf(v -> v.expiresAtMillis < cutoff);
        reads.retainOnly(byPipeline.keySet());
    }
}
