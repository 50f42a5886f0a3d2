package io.kes.connector.routing;

import io.kes.connector.cluster.ClusterMetadataClient;
import io.kes.connector.cluster.IndexMetadata;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Target names (index, alias or data stream) and the layout of the index taking each one's writes,
 * as last read, with how long to trust it: a name that does not exist yet is looked up again after
 * a second, an alias or data stream every 10 s (its write index can roll over), a concrete index
 * every minute, and after a failed read in 5 s, the last layout read staying in use meanwhile
 * (predictions must not flap between "known" and "unknown" while nothing changed). Used on the
 * routing table's owner thread; {@link #resolve} runs on any.
 */
final class TargetNames {

    static final long MISSING_TTL_MILLIS = 1_000;
    static final long ALIAS_TTL_MILLIS = 10_000;
    static final long INDEX_TTL_MILLIS = 60_000;
    static final long ERROR_TTL_MILLIS = 5_000;

    /** A name's layout (null: none), until when to trust it, and when it was last asked for. */
    static final class Entry {
        final IndexLayout layout;
        /** {@link #layout}, made once: every document asks for it. */
        final Optional<IndexLayout> found;

        final long expiresAtMillis;
        long lastUsedMillis;

        Entry(IndexLayout layout, long expiresAtMillis, long now) {
            this.layout = layout;
            this.found = Optional.ofNullable(layout);
            this.expiresAtMillis = expiresAtMillis;
            this.lastUsedMillis = now;
        }

        boolean expired(long now) {
            return now >= expiresAtMillis;
        }

        /** What stays in use after a failed read: the last layout read (none when there was none), read again in 5 s. */
        static Entry afterFailedRead(Entry previous, long now) {
            return new Entry(previous == null ? null : previous.layout, now + ERROR_TTL_MILLIS, now);
        }
    }

    /** The index taking a name's writes (null: none), and how long to trust that. */
    record WriteIndex(IndexMetadata index, long ttlMillis) {}

    private final Map<String, Entry> byName = new HashMap<>();

    /**
     * Reads which index takes {@code name}'s writes now: the index of that name, or the write
     * index of the alias or data stream. Runs on any thread and changes nothing here.
     */
    static WriteIndex resolve(ClusterMetadataClient metadata, String name) throws IOException {
        Map<String, IndexMetadata> found = metadata.indices(List.of(name));
        IndexMetadata index = found.get(name);
        long ttl = INDEX_TTL_MILLIS;
        if (index == null && !found.isEmpty()) {
            ttl = ALIAS_TTL_MILLIS; // an alias or data stream: its write index can roll over
            Optional<String> writeIndex = metadata.writeIndex(name);
            if (writeIndex.isPresent()) {
                index = found.get(writeIndex.get());
                if (index == null) {
                    index = metadata.indices(List.of(writeIndex.get())).get(writeIndex.get());
                }
            }
        }
        return index == null ? new WriteIndex(null, MISSING_TTL_MILLIS) : new WriteIndex(index, ttl);
    }

    /** The entry of {@code name}, or null: never read, or forgotten. */
    Entry get(String name) {
        return byName.get(name);
    }

    void put(String name, Entry entry) {
        byName.put(name, entry);
    }

    /** Forgets the names whose layout is of calibration {@code generation}: their next lookup reads them again. */
    void forgetGeneration(Object generation) {
        byName.values().removeIf(entry -> entry.layout != null && entry.layout.generation() == generation);
    }

    /** Forgets the names last asked for before {@code cutoff}. */
    void forgetUnusedSince(long cutoff) {
        byName.values().removeIf(e -> e.lastUsedMillis < cutoff);
    }

    /** The names remembered; a live view. */
    Set<String> names() {
        return byName.keySet();
    }

    int size() {
        return byName.size();
    }
}
