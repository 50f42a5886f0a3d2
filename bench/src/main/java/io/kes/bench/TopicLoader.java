package io.kes.bench;

import io.kes.connector.KafkaCoordinateId;
import io.kes.connector.routing.IndexRouting;
import io.kes.connector.routing.RoutingFunction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The topic-reading ceiling, a process of its own ({@link TopicLoaderRuns} starts and times it as
 * {@code bin/kes run} is timed): one plain {@link KafkaConsumer} reads every partition of the topic
 * from its first offset to the end offsets it saw at start; per record, kes's id
 * ({@link KafkaCoordinateId}), its shard by Elasticsearch's routing ({@link IndexRouting}), the
 * action line and the record's value appended to that shard's body ({@link ShardBulks}); a full
 * body goes to a few sender threads, which post it to the node holding the shard's primary (when
 * given) or to the next node round-robin, retrying 429s ({@link DirectLoader#send}). What is left
 * goes at the end; exit 0. Plain on purpose: no checkpoints, no retries beyond 429s, no ordering:
 * the least a client must do to turn the topic into the same single-shard bulks.
 *
 * <p>With {@code --durable-end true} it ends as a bounded kes job ends its input: a {@code _refresh}
 * and a {@code _flush} of the index together, awaited, so that at exit its documents are on disk
 * and searchable as kes's are. Without it the last writes sit unsynced in an async translog (up
 * to {@code index.translog.sync_interval}) and, with {@code refresh_interval: -1}, unsearchable:
 * the node writes their segments later, after the clock has stopped.
 *
 * <p>Arguments, all {@code --name value}: {@code bootstrap}, {@code topic}, {@code index},
 * {@code nodes} (comma-separated URLs), {@code primaries} (optional, one URL per shard),
 * {@code threads}, {@code docs-per-bulk}, {@code durable-end} (optional, false), and the index's
 * routing: {@code shards}, {@code routing-num-shards}, {@code routing-partition-size},
 * {@code routing-function}.
 */
final class TopicLoader {

    /** Tells a sender thread that no bulk comes any more. */
    private static final ShardBulks.Bulk END = new ShardBulks.Bulk(-1, new byte[0], 0);

    private final Map<String, String> args;

    private TopicLoader(Map<String, String> args) {
        this.args = args;
    }

    public static void main(String[] argv) {
        try {
            long started = System.nanoTime();
            long docs = new TopicLoader(parse(argv)).load();
            System.out.printf("topic loader: %,d documents in %.1f s%n", docs, (System.nanoTime() - started) / 1e9);
            System.exit(0);
        } catch (Throwable e) {
            e.printStackTrace();
            System.exit(1);
        }
    }

    /** {@code --name value} pairs; every name but {@code primaries} is required. */
    static Map<String, String> parse(String[] argv) {
        Map<String, String> args = new HashMap<>();
        for (int i = 0; i + 1 < argv.length; i += 2) {
            if (!argv[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --name value pairs, got " + argv[i]);
            }
            args.put(argv[i].substring(2), argv[i + 1]);
        }
        return args;
    }

    private String arg(String name) {
        String value = args.get(name);
        if (value == null) {
            throw new IllegalArgumentException("missing --" + name + " (TopicLoader's javadoc lists its arguments)");
        }
        return value;
    }

    private int intArg(String name) {
        return Integer.parseInt(arg(name));
    }

    /** Reads the topic to its end offsets and sends every document; returns how many. */
    private long load() throws Exception {
        String topic = arg("topic");
        String index = arg("index");
        List<String> nodes = List.of(arg("nodes").split(","));
        String[] primaries = args.containsKey("primaries") ? arg("primaries").split(",") : null;
        IndexRouting routing = new IndexRouting(
                index,
                intArg("shards"),
                intArg("routing-num-shards"),
                intArg("routing-partition-size"),
                RoutingFunction.valueOf(arg("routing-function")));
        ShardBulks bulks = new ShardBulks(routing.numberOfShards(), intArg("docs-per-bulk"));
        Senders senders = new Senders(index, nodes, primaries, intArg("threads"));
        long docs = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(arg("bootstrap"))) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo p : consumer.partitionsFor(topic)) {
                partitions.add(new TopicPartition(topic, p.partition()));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> endOffsets = consumer.endOffsets(partitions);
            long[] end = new long[partitions.size()];
            endOffsets.forEach((tp, offset) -> end[tp.partition()] = offset);
            List<TopicPartition> open = new ArrayList<>(partitions);
            open.removeIf(tp -> consumer.position(tp) >= end[tp.partition()]);
            while (!open.isEmpty()) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    if (r.offset() >= end[r.partition()]) {
                        continue; // written after the start: a bounded kes job stops at the same offsets
                    }
                    String id = KafkaCoordinateId.of(topic, r.partition(), r.offset());
                    ShardBulks.Bulk full = bulks.add(routing.shardOf(id, null), id, r.value());
                    if (full != null) {
                        senders.send(full);
                    }
                    docs++;
                }
                open.removeIf(tp -> consumer.position(tp) >= end[tp.partition()]);
            }
        }
        for (ShardBulks.Bulk left : bulks.drain()) {
            senders.send(left);
        }
        senders.finish();
        if (Boolean.parseBoolean(args.getOrDefault("durable-end", "false"))) {
            long started = System.nanoTime();
            DirectLoader.refreshAndFlush(nodes.get(0), index);
            System.out.printf("topic loader: _refresh and _flush in %.2f s%n", (System.nanoTime() - started) / 1e9);
        }
        return docs;
    }

    /** A consumer of no group (assigned partitions, nothing committed): bytes in, bytes out. */
    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "kes-bench-topic-loader");
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * A few threads posting bulks from a queue as short as they are many: when every one is busy the
     * reader waits, so at most {@code 2 x threads} bodies are in memory or in flight.
     */
    private static final class Senders {
        private final BlockingQueue<ShardBulks.Bulk> queue;
        private final List<Thread> threads = new ArrayList<>();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final AtomicInteger next = new AtomicInteger();

        Senders(String index, List<String> nodes, String[] primaries, int count) {
            this.queue = new ArrayBlockingQueue<>(count);
            for (int t = 0; t < count; t++) {
                Thread thread = new Thread(
                        () -> {
                            try {
                                for (ShardBulks.Bulk b = queue.take(); b != END; b = queue.take()) {
                                    String url = primaries != null
                                            ? primaries[b.shard()]
                                            : nodes.get(Math.floorMod(next.getAndIncrement(), nodes.size()));
                                    DirectLoader.send(url, index, b.body());
                                }
                            } catch (Throwable e) {
                                failure.compareAndSet(null, e);
                            }
                        },
                        "topic-loader-sender-" + t);
                thread.start();
                threads.add(thread);
            }
        }

        /** Hands {@code bulk} to the next free sender, waiting while all are busy; throws a sender's failure. */
        void send(ShardBulks.Bulk bulk) throws Exception {
            while (!queue.offer(bulk, 100, TimeUnit.MILLISECONDS)) {
                rethrow();
            }
            rethrow();
        }

        /** Waits for every bulk to be acknowledged. */
        void finish() throws Exception {
            for (int t = 0; t < threads.size(); t++) {
                send(END);
            }
            for (Thread t : threads) {
                t.join();
            }
            rethrow();
        }

        private void rethrow() throws Exception {
            Throwable e = failure.get();
            if (e instanceof Exception ex) {
                throw ex;
            }
            if (e != null) {
                throw new IllegalStateException("a sender thread failed", e);
            }
        }
    }
}
