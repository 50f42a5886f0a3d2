package io.kes.jobs.quickstart;

import io.kes.jobs.KesJob;
import io.kes.jobs.cli.ProgressReporter;
import io.kes.jobs.config.KesConfig;
import io.kes.stack.Engine;
import io.kes.stack.Http;
import io.kes.stack.KafkaBroker;
import io.kes.stack.LocalStack;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * {@code bin/kes quickstart}: starts the local stack, loads a deterministic sample stream into
 * Kafka (once: a second run finds it there), runs the kes job in an embedded MiniCluster from the
 * first offset to the last, shows progress, and checks that Elasticsearch holds exactly as many
 * documents as Kafka holds records. Replays overwrite (ids from Kafka coordinates), so the count
 * stays equal however often it runs.
 */
public final class Quickstart {

    static final String TOPIC = "kes-quickstart-logs";
    static final String INDEX = "kes-quickstart-logs";
    static final int PARTITIONS = 6;
    static final int SHARDS = 6;

    private final long records;
    private final long seed;
    private final int parallelism;
    private final LocalStack stack;

    Quickstart(long records, long seed, int parallelism) {
        this(records, seed, parallelism, Engine.ELASTICSEARCH);
    }

    Quickstart(long records, long seed, int parallelism, Engine engine) {
        this.records = records;
        this.seed = seed;
        this.parallelism = parallelism;
        this.stack = LocalStack.fromEnvironment(engine);
    }

    public static void main(String[] args) throws Exception {
        long records = 1_000_000;
        long seed = 42;
        int parallelism = 2;
        Engine engine = Engine.ELASTICSEARCH;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--records" -> records = Long.parseLong(args[i + 1].replace("_", ""));
                case "--seed" -> seed = Long.parseLong(args[i + 1]);
                case "--parallelism" -> parallelism = Integer.parseInt(args[i + 1]);
                case "--engine" -> engine = Engine.parse(args[i + 1]);
                default -> {
                    System.err.println(
                            "usage: kes quickstart [--records N] [--seed S] [--parallelism P] [--engine elasticsearch|opensearch]");
                    System.exit(2);
                }
            }
        }
        boolean equal = new Quickstart(records, seed, parallelism, engine).run();
        System.exit(equal ? 0 : 1);
    }

    boolean run() throws Exception {
        step("1/4 Local stack (Kafka + " + stack.engine().displayName() + ")");
        stack.up();
        Http es = new Http(stack.elasticsearchUrl());

        step("2/4 Sample stream: " + records + " JSON application logs (~500 bytes, seed " + seed + ") in topic "
                + TOPIC);
        long inKafka = loadSampleStream();

        step("3/4 Index " + INDEX + " (" + SHARDS + " shards, replicas 0, async translog)");
        createIndex(es);

        step("4/4 kes job in an embedded Flink MiniCluster (parallelism " + parallelism + ")");
        long started = System.nanoTime();
        runJob(es, inKafka);
        double seconds = (System.nanoTime() - started) / 1e9;

        long inEs = es.refreshAndCount(INDEX);
        long bulks = ProgressReporter.sum("bulksSent", "bulk writer");
        System.out.println();
        System.out.println("================ kes quick start: summary ================");
        System.out.printf("Records in Kafka (%s):           %,d%n", TOPIC, inKafka);
        System.out.printf(
                "Documents in Elasticsearch (%s): %,d  %s%n",
                INDEX, inEs, inEs == inKafka ? "(equal)" : "(NOT EQUAL: see .kes/logs/kes.log)");
        System.out.printf("Elapsed: %.1f s, %,.0f docs/s, %,d single-shard bulks%n", seconds, inKafka / seconds, bulks);
        System.out.println();
        System.out.println("Look at the data:");
        System.out.println("  curl -s '" + stack.elasticsearchUrl() + "/_cat/indices/" + INDEX + "?v'");
        System.out.println("  curl -s '" + stack.elasticsearchUrl() + "/" + INDEX + "/_search?size=1&pretty'");
        System.out.println("  curl -s '" + stack.elasticsearchUrl() + "/" + INDEX
                + "/_search?size=0&pretty' -H 'Content-Type: application/json' \\");
        System.out.println("       -d '{\"aggs\":{\"by_service\":{\"terms\":{\"field\":\"service.keyword\"}}}}'");
        System.out.println("The local stack keeps running; stop it with: bin/kes local down");
        return inEs == inKafka;
    }

    /** Produces the records the topic does not hold yet; record i is always the same. */
    private long loadSampleStream() throws Exception {
        KafkaBroker.createTopicAt(stack.kafkaBootstrap(), TOPIC, PARTITIONS, Map.of("compression.type", "producer"));
        long existing = endOffsetsSum();
        if (existing >= records) {
            System.out.printf("  topic already holds %,d records: nothing to produce%n", existing);
            return existing;
        }
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafkaBootstrap());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
        SampleLogs logs = new SampleLogs(seed);
        long started = System.nanoTime();
        AtomicReference<Exception> sendFailure = new AtomicReference<>();
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (long i = existing; i < records && sendFailure.get() == null; i++) {
                producer.send(
                        new ProducerRecord<>(TOPIC, (int) (i % PARTITIONS), null, logs.record(i)), (metadata, e) -> {
                            if (e != null) {
                                sendFailure.compareAndSet(null, e);
                            }
                        });
                if ((i + 1) % 100_000 == 0) {
                    System.out.printf("  produced %,d / %,d%n", i + 1, records);
                }
            }
            producer.flush();
        }
        if (sendFailure.get() != null) {
            throw new IllegalStateException(
                    "producing the sample stream to " + stack.kafkaBootstrap() + " failed", sendFailure.get());
        }
        long total = endOffsetsSum();
        System.out.printf(
                "  produced %,d records (zstd-compressed batches) in %.1f s; topic holds %,d%n",
                records - existing, (System.nanoTime() - started) / 1e9, total);
        return total;
    }

    private long endOffsetsSum() throws Exception {
        try (Admin admin = KafkaBroker.adminAt(stack.kafkaBootstrap())) {
            Map<TopicPartition, OffsetSpec> request = new HashMap<>();
            for (int p = 0; p < PARTITIONS; p++) {
                request.put(new TopicPartition(TOPIC, p), OffsetSpec.latest());
            }
            return admin.listOffsets(request).all().get(30, TimeUnit.SECONDS).values().stream()
                    .mapToLong(o -> o.offset())
                    .sum();
        }
    }

    private static void createIndex(Http es) throws IOException {
        if (es.get("/" + INDEX).status() == 200) {
            System.out.println("  index exists: the job overwrites documents by id, nothing is duplicated");
            return;
        }
        es.send(
                        "PUT",
                        "/" + INDEX,
                        "{\"settings\":{\"number_of_shards\":" + SHARDS + ",\"number_of_replicas\":0,"
                                + "\"refresh_interval\":\"1s\",\"translog.durability\":\"async\"}}")
                .requireOk("creating " + INDEX);
        System.out.println("  created");
    }

    private void runJob(Http es, long inKafka) throws Exception {
        String yaml = String.join(
                "\n",
                "elasticsearch:",
                "  hosts: [" + stack.elasticsearchUrl() + "]",
                "kafka:",
                "  bootstrap_servers: " + stack.kafkaBootstrap(),
                "  group_id: kes-quickstart",
                "  starting_offsets: earliest",
                "routes:",
                "  - topics: [" + TOPIC + "]",
                "    index: " + INDEX,
                "    id: kafka",
                "job:",
                "  name: kes-quickstart",
                "  parallelism: " + parallelism,
                "  checkpoint_interval: 5s",
                "  bounded: true",
                "");
        KesConfig config = KesConfig.parse(yaml, System.getenv());
        Configuration flink = new Configuration();
        flink.setString("metrics.reporter.kesprogress.factory.class", ProgressReporter.Factory.class.getName());
        flink.setString("metrics.reporter.kesprogress.interval", "1 s");
        flink.setString("taskmanager.memory.network.max", "256mb");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(parallelism, flink);
        ProgressReporter.reset();
        JobClient job = KesJob.start(env, config);
        long started = System.nanoTime();
        ProgressReporter.Rate docsPerSecond = new ProgressReporter.Rate(started);
        boolean commitNotePrinted = false;
        var result = job.getJobExecutionResult();
        while (true) {
            boolean done = result.isDone();
            long read = ProgressReporter.sum("numRecordsOut", "Source");
            long indexed = ProgressReporter.sum("numRecordsSend", "bulk writer");
            long now = System.nanoTime();
            double rate = docsPerSecond.perSecond(indexed, now);
            System.out.printf(
                    "  [%5.0fs] read %,11d | indexed %,11d | %,8.0f docs/s | lag %,d%n",
                    (now - started) / 1e9, read, indexed, rate, Math.max(0, inKafka - read));
            if (ProgressReporter.offsetCommitNoteDue(commitNotePrinted)) {
                System.out.println("  " + ProgressReporter.OFFSET_COMMIT_NOTE);
                commitNotePrinted = true;
            }
            if (done) {
                result.get(); // rethrows the job's failure
                return;
            }
            try {
                result.get(2, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException stillRunning) {
                // next progress line
            }
        }
    }

    private static void step(String title) {
        System.out.println();
        System.out.println("==> " + title);
    }
}
