package io.kes.connector.routing;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.flink.annotation.Internal;

/**
 * Reads of keys seen for the first time (a daily index, a {@code {tenant}} index: about ten
 * metadata calls), run outside the lock that guards their owner: the first thread that needs a
 * key runs its read, the other threads that need the same key wait for it, and threads that need
 * keys already known go on meanwhile. The owner installs the value under its lock once the read is
 * done ({@link #takeDone}). Registering and taking happen under the owner's lock; only
 * {@link Read#runOrAwait} runs without it.
 */
@Internal
final class FirstReads<K, V> {

    /** One first read: run once, by whichever thread claims it first. */
    static final class Pending<V> {
        private final Supplier<V> read;
        private final Function<Throwable, V> onError;
        private final AtomicBoolean claimed = new AtomicBoolean();
        private final CompletableFuture<V> result = new CompletableFuture<>();

        private Pending(Supplier<V> read, Function<Throwable, V> onError) {
            this.read = read;
            this.onError = onError;
        }

        /**
         * Runs the read on this thread if no other thread runs it, or waits until the one that does
         * is done. Call without the owner's lock: that is the point.
         */
        void runOrAwait() {
            if (claimed.compareAndSet(false, true)) {
                try {
                    result.complete(read.get());
                } catch (RuntimeException | Error e) {
                    result.complete(onError.apply(e));
                    throw e;
                }
            } else {
                result.join();
            }
        }

        boolean done() {
            return result.isDone();
        }
    }

    private final Map<K, Pending<V>> byKey = new HashMap<>();
    private final Function<Throwable, V> onError;

    /** @param onError what a read that threw (not the reads' own caught failures) counts as */
    FirstReads(Function<Throwable, V> onError) {
        this.onError = onError;
    }

    /**
     * The read of {@code key} to run or wait for: the one registered, or a new one of {@code read};
     * null when the one registered is done (take it with {@link #takeDone}).
     */
    Pending<V> pending(K key, Supplier<V> read) {
        Pending<V> pending = byKey.computeIfAbsent(key, k -> new Pending<>(read, onError));
        return pending.done() ? null : pending;
    }

    /** The value of {@code key}'s finished first read, once; null while it runs or when there is none. */
    V takeDone(K key) {
        Pending<V> read = byKey.get(key);
        if (read == null || !read.done()) {
            return null;
        }
        byKey.remove(key);
        return read.result.join();
    }

    /** First reads registered and not taken yet (for tests of the bound). */
    int size() {
        return byKey.size();
    }
}
