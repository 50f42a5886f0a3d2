package io.kes.bench;

import io.kes.connector.KafkaCoordinateId;
import io.kes.connector.routing.IndexRouting;
import io.kes.jobs.quickstart.SampleLogs;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The raw ceiling: pre-serialized {@code _bulk} bodies (the same documents and ids the kes job
 * writes: SampleLogs record i is Kafka partition i % P, offset i / P) sent straight to the nodes by
 * a few threads, each request to the next node round-robin. No Kafka, no Flink, no per-document
 * work while the clock runs.
 */
final class DirectLoader {

    /** Bulk bodies without {@code _index} in the action lines, so one set serves every fresh index. */
    record Bulks(List<byte[]> bodies, int[] shards, long docs, boolean singleShard) {}

    /** Timings of one load. */
    record Result(double seconds, long[] latencyMillis) {}

    static {
        // HttpURLConnection, not the JDK's HttpClient: that client's selector thread stays in native
        // code, and the topic loader's JVM exit would wait up to 300 ms for it (as bin/kes run's did).
        // Idle keep-alive connections kept per node: the JDK keeps 5, the loaders send from more threads.
        if (System.getProperty("http.maxConnections") == null) {
            System.setProperty("http.maxConnections", "256");
        }
    }

    private DirectLoader() {}

    /**
     * @param routing   how the target indices route (all fresh indices of one shard count route alike);
     *                  null for mixed bulks: consecutive documents, whatever their shards
     */
    static Bulks prepare(
            SampleLogs logs, String topic, int partitions, long records, int docsPerBulk, IndexRouting routing) {
        return prepare(logs, topic, partitions, records, null, docsPerBulk, routing);
    }

    /**
     * @param fromOffset per partition, the first offset to include (the slice a kes run reads); null: all
     */
    static Bulks prepare(
            SampleLogs logs,
            String topic,
            int partitions,
            long records,
            long[] fromOffset,
            int docsPerBulk,
            IndexRouting routing) {
        return prepare(logs, topic, partitions, 0, records, fromOffset, docsPerBulk, routing);
    }

    /**
     * Records {@code first} (inclusive) to {@code end} (exclusive) in the order they were produced
     * (record {@code i} is offset {@code i / partitions} of partition {@code i % partitions}): one
     * window of the long-running ceiling.
     */
    static Bulks prepare(
            SampleLogs logs,
            String topic,
            int partitions,
            long first,
            long end,
            int docsPerBulk,
            IndexRouting routing) {
        return prepare(logs, topic, partitions, first, end, null, docsPerBulk, routing);
    }

    private static Bulks prepare(
            SampleLogs logs,
            String topic,
            int partitions,
            long first,
            long end,
            long[] fromOffset,
            int docsPerBulk,
            IndexRouting routing) {
        int shards = routing == null ? 1 : routing.numberOfShards();
        ShardBulks open = new ShardBulks(shards, docsPerBulk);
        List<List<byte[]>> perShard = new ArrayList<>();
        for (int s = 0; s < shards; s++) {
            perShard.add(new ArrayList<>());
        }
        long included = 0;
        for (long i = first; i < end; i++) {
            int partition = (int) (i % partitions);
            if (fromOffset != null && i / partitions < fromOffset[partition]) {
                continue;
            }
            included++;
            String id = KafkaCoordinateId.of(topic, partition, i / partitions);
            ShardBulks.Bulk full = open.add(routing == null ? 0 : routing.shardOf(id, null), id, logs.record(i));
            if (full != null) {
                perShard.get(full.shard()).add(full.body());
            }
        }
        for (ShardBulks.Bulk left : open.drain()) {
            perShard.get(left.shard()).add(left.body());
        }
        // Interleave the shards (s0 b0, s1 b0, ..., s0 b1, ...) so every shard is written all along.
        List<byte[]> bodies = new ArrayList<>();
        List<Integer> shardOfBody = new ArrayList<>();
        for (int b = 0; ; b++) {
            boolean any = false;
            for (int s = 0; s < shards; s++) {
                List<byte[]> list = perShard.get(s);
                if (b < list.size()) {
                    bodies.add(list.get(b));
                    shardOfBody.add(routing == null ? -1 : s);
                    any = true;
                }
            }
            if (!any) {
                break;
            }
        }
        return new Bulks(
                bodies, shardOfBody.stream().mapToInt(Integer::intValue).toArray(), included, routing != null);
    }

    /** Sends every bulk of {@code bulks} into {@code index}, {@code threads} at a time, round-robin over {@code nodeUrls}. */
    static Result load(Bulks bulks, String index, List<String> nodeUrls, int threads) throws Exception {
        return load(bulks, index, nodeUrls, null, threads);
    }

    /**
     * @param primaryUrlByShard when given, each single-shard bulk goes to the node holding its shard's
     *                          primary (no hop from a coordinating node); else round-robin
     */
    static Result load(Bulks bulks, String index, List<String> nodeUrls, String[] primaryUrlByShard, int threads)
            throws Exception {
        AtomicInteger next = new AtomicInteger();
        long[] latencyNanos = new long[bulks.bodies().size()];
        AtomicReference<Exception> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        long started = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(
                    () -> {
                        try {
                            for (int k = next.getAndIncrement();
                                    k < latencyNanos.length && failure.get() == null;
                                    k = next.getAndIncrement()) {
                                int shard = bulks.shards()[k];
                                String url = primaryUrlByShard != null && shard >= 0
                                        ? primaryUrlByShard[shard]
                                        : nodeUrls.get(k % nodeUrls.size());
                                long t0 = System.nanoTime();
                                send(url, index, bulks.bodies().get(k));
                                latencyNanos[k] = System.nanoTime() - t0;
                            }
                        } catch (Exception e) {
                            failure.compareAndSet(null, e);
                        }
                    },
                    "bench-loader-" + t);
            worker.start();
            workers.add(worker);
        }
        for (Thread w : workers) {
            w.join();
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        if (failure.get() != null) {
            throw failure.get();
        }
        long[] millis = new long[latencyNanos.length];
        for (int i = 0; i < millis.length; i++) {
            millis[i] = Math.round(latencyNanos[i] / 1e6);
        }
        return new Result(seconds, millis);
    }

    /**
     * A {@code _refresh} and a {@code _flush} of {@code index} together, both awaited: what a bounded
     * kes job's end asks of the node ({@code PrimaryShardState.refreshAndFlush}), so that a loader
     * timed with it stops its clock with the same durable, searchable index.
     */
    static void refreshAndFlush(String url, String index) throws IOException, InterruptedException {
        CompletableFuture<Void> refreshed = CompletableFuture.runAsync(() -> {
            try {
                post(url + "/" + index + "/_refresh", null, 200);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        post(url + "/" + index + "/_flush", null, 200);
        try {
            refreshed.get();
        } catch (ExecutionException e) {
            throw new IOException("_refresh of " + index + " failed", e.getCause());
        }
    }

    /** The answer to a POST: HTTP status and body. */
    private record Answer(int status, String body) {}

    /** POSTs {@code body} (none when null); throws unless the status is {@code expected}. */
    private static Answer post(String url, byte[] body, int expected) throws IOException {
        HttpURLConnection connection =
                (HttpURLConnection) URI.create(url).toURL().openConnection();
        connection.setConnectTimeout(5_000);
        connection.setReadTimeout(120_000);
        connection.setRequestMethod("POST");
        if (body != null) {
            connection.setDoOutput(true);
            connection.setFixedLengthStreamingMode(body.length);
            connection.setRequestProperty("Content-Type", "application/x-ndjson");
            try (OutputStream out = connection.getOutputStream()) {
                out.write(body);
            }
        }
        int status = connection.getResponseCode();
        String answer;
        try (InputStream in = status < 400 ? connection.getInputStream() : connection.getErrorStream()) {
            answer = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (expected > 0 && status != expected) {
            throw new IOException("POST " + url + ": HTTP " + status + " " + answer);
        }
        return new Answer(status, answer);
    }

    /**
     * One bulk; on item errors (429s) the whole bulk is sent again after a pause: ids make that an
     * overwrite. The topic-reading loader ({@link TopicLoader}) sends through here too.
     */
    static void send(String url, String index, byte[] body) throws IOException, InterruptedException {
        String bulkUrl = url + "/" + index + "/_bulk?filter_path=errors,items.*.error.type";
        for (int attempt = 1; ; attempt++) {
            Answer response = post(bulkUrl, body, 0);
            boolean ok = response.status() == 200 && response.body().startsWith("{\"errors\":false");
            if (ok) {
                return;
            }
            boolean retryable = response.status() == 429
                    || response.status() == 503
                    || (response.status() == 200 && response.body().contains("rejected"));
            if (!retryable || attempt >= 30) {
                throw new IOException("bulk to " + url + "/" + index + " failed (attempt " + attempt + "): HTTP "
                        + response.status() + " "
                        + response.body()
                                .substring(0, Math.min(500, response.body().length())));
            }
            Thread.sleep(Math.min(1000, 20L * attempt));
        }
    }
}
