package io.kes.connector.routing;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import org.apache.flink.annotation.Internal;

/**
 * Metadata reads that run on a refresher thread while their owner keeps using what it read before,
 * at most one per key. Used from the owner's thread only; the owner picks a result up when it is
 * done ({@link #takeDone}), so its own state changes on its own thread.
 */
@Internal
final class BackgroundReads<K, V> {

    private final Executor refresher;
    private final Map<K, CompletableFuture<V>> running = new HashMap<>();

    /** @param refresher null: every read runs at once, on the caller's thread */
    BackgroundReads(Executor refresher) {
        this.refresher = refresher;
    }

    /**
     * What its owner should install for {@code key} now, if anything: a finished background read;
     * else, when it has nothing for the key ({@code known} false), a read here (there is nothing to
     * use meanwhile; a read still running from before is dropped); else, when what it has
     * {@code expired}, a background read is started (or, without a refresher, a read here).
     *
     * @return the value to install, empty to keep using what the owner has
     */
    Optional<V> next(K key, boolean known, boolean expired, Supplier<V> read) {
        Optional<V> done = takeDone(key);
        if (done.isPresent()) {
            return done;
        }
        if (!known) {
            forget(key);
            return Optional.of(read.get());
        }
        return expired && !running(key) ? start(key, read) : Optional.empty();
    }

    /**
     * Starts reading {@code key} on the refresher; without one (or once it is shut down) reads here.
     *
     * @return the value when it was read here, empty when the read runs in the background
     */
    Optional<V> start(K key, Supplier<V> read) {
        if (refresher != null) {
            try {
                running.put(key, CompletableFuture.supplyAsync(read, refresher));
                return Optional.empty();
            } catch (RejectedExecutionException closing) {
                // the writer is closing: read here
            }
        }
        return Optional.of(read.get());
    }

    /** Whether a read of any key was started and not taken yet. */
    boolean anyRunning() {
        return !running.isEmpty();
    }

    boolean running(K key) {
        return running.containsKey(key);
    }

    /** The value of a finished background read of {@code key}, once; empty while it runs or when none was started. */
    Optional<V> takeDone(K key) {
        CompletableFuture<V> read = running.get(key);
        if (read == null || !read.isDone()) {
            return Optional.empty();
        }
        running.remove(key);
        return Optional.of(read.join()); // the reads catch their own failures
    }

    /** Drops the reads (running or finished, not taken) of every key but {@code kept}: their owner forgot those keys. */
    void retainOnly(java.util.Set<K> kept) {
        running.keySet().retainAll(kept);
    }

    /** Drops a running read of {@code key}: its value will not be taken. */
    void forget(K key) {
        running.remove(key);
    }
}
