package io.kes.bench;

import io.kes.stack.Http;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a user searching the index sees: {@code GET <index>/_count} through one node every
 * {@link #PERIOD_MS} ms, never refreshing (a refresh would make visible what the index's own
 * refresh has not). Each search is sent on time whether the one before has answered or not: a
 * search held by a stopped node's shards answers late, and the searches behind it are not held
 * back by it, so every 200 ms of the run has its sample. A sample is timed at its answer, when the
 * user learns the count.
 */
final class VisibleCounts implements AutoCloseable {

    static final long PERIOD_MS = 200;

    /** Long enough for a search to outlast a stall; one that does not answer in it is counted as unanswered. */
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** One answered search: when it was sent and answered ({@link System#nanoTime}) and the count it returned. */
    record Sample(long sentNanos, long answeredNanos, long count) {}

    private final HttpClient client = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1)
            .build();
    private final HttpRequest request;
    private final ScheduledExecutorService ticks = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "kes-bench-visible-count");
        t.setDaemon(true);
        return t;
    });
    private final List<Sample> samples = new ArrayList<>();
    private final AtomicLong highest = new AtomicLong();
    private final AtomicLong unanswered = new AtomicLong();

    /** Starts searching at once, through {@code nodeUrl}. */
    VisibleCounts(String nodeUrl, String index) {
        this.request = HttpRequest.newBuilder(URI.create(nodeUrl + "/" + index + "/_count"))
                .timeout(TIMEOUT)
                .GET()
                .build();
        ticks.scheduleAtFixedRate(this::search, 0, PERIOD_MS, TimeUnit.MILLISECONDS);
    }

    private void search() {
        long sent = System.nanoTime();
        client.sendAsync(request, HttpResponse.BodyHandlers.ofString()).whenComplete((r, failure) -> {
            long answered = System.nanoTime();
            if (failure != null || r.statusCode() != 200) {
                unanswered.incrementAndGet();
                return;
            }
            try {
                long count = Http.longField(r.body(), "count");
                highest.accumulateAndGet(count, Math::max);
                synchronized (samples) {
                    samples.add(new Sample(sent, answered, count));
                }
            } catch (RuntimeException noCount) {
                unanswered.incrementAndGet(); // an answer without a count (e.g. shard failures only) counts nothing
            }
        });
    }

    /** The highest count any search has returned so far. */
    long highest() {
        return highest.get();
    }

    /** Searches that failed or timed out. */
    long unanswered() {
        return unanswered.get();
    }

    /** Every answered search so far, in the order the answers came. */
    List<Sample> samples() {
        synchronized (samples) {
            return List.copyOf(samples);
        }
    }

    @Override
    public void close() {
        ticks.shutdownNow();
    }
}
