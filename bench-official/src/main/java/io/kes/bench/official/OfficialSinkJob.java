package io.kes.bench.official;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.elasticsearch.sink.Elasticsearch7SinkBuilder;
import org.apache.flink.connector.elasticsearch.sink.FlushBackoffType;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;
import org.apache.http.HttpHost;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.elasticsearch.action.index.IndexRequest;
import org.elasticsearch.common.xcontent.XContentType;

/**
 * The official Flink Elasticsearch sink as {@code bin/kes bench} runs it: Kafka topic -> index, ids
 * from the records' Kafka coordinates (kes's {@code id: kafka}), the JSON values untouched, the
 * sink's bulk settings as kes's (1,000 actions / 5 MB / 1 s, one bulk in flight per subtask, which is
 * the official sink's only mode), exponential backoff on rejected bulks (8 retries from 100 ms), at-least-once
 * with checkpoints as often as kes's.
 *
 * <p>One process serves every run of the bench, as kes's shared MiniCluster does: it starts a
 * MiniCluster once, then reads commands from stdin, one per line, and answers on stdout:
 * <pre>
 * run &lt;bootstrap&gt; &lt;topic&gt; &lt;index&gt; &lt;es urls, comma&gt; &lt;parallelism&gt; &lt;checkpoint ms&gt; &lt;partition:offset,...&gt;
 *   -> official: first-read          (the first record was read: the bench starts its clock)
 *   -> official: done                (the bounded job finished: the end offsets seen at its start)
 *   -> official: failed &lt;why&gt;
 * run ... &lt;partition:offset,...&gt; &lt;partition:end offset,...&gt;
 *   the same, following the topic until those end offsets (records not yet produced when it
 *   starts: the bench's fixed-load scenario)
 * </pre>
 */
public final class OfficialSinkJob {

    /** Set by the first record of a run, in this JVM (the MiniCluster runs here). */
    static final AtomicBoolean FIRST_READ = new AtomicBoolean();

    private static final PrintStream OUT = System.out;

    private OfficialSinkJob() {}

    public static void main(String[] args) throws Exception {
        int slots = Integer.parseInt(args.length > 0 ? args[0] : "2");
        Configuration flink = new Configuration();
        flink.set(RestOptions.BIND_PORT, "0");
        flink.setString("taskmanager.memory.network.max", "256mb");
        try (MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(flink)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(slots)
                .build())) {
            cluster.start();
            URI rest = cluster.getRestAddress().get();
            say("ready");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line; (line = in.readLine()) != null; ) {
                String[] c = line.trim().split(" ");
                if (c[0].equals("run") && (c.length == 8 || c.length == 9)) {
                    try {
                        run(
                                rest,
                                c[1],
                                c[2],
                                c[3],
                                c[4],
                                Integer.parseInt(c[5]),
                                Long.parseLong(c[6]),
                                c[7],
                                c.length == 9 ? c[8] : null);
                        say("done");
                    } catch (Exception e) {
                        Throwable root = e;
                        while (root.getCause() != null) {
                            root = root.getCause();
                        }
                        say("failed " + (e + " / root cause: " + root).replace('\n', ' '));
                    }
                } else if (c[0].equals("exit")) {
                    break;
                } else {
                    say("failed unknown command: " + line);
                }
            }
        }
        System.exit(0);
    }

    private static void say(String what) {
        OUT.println("official: " + what);
        OUT.flush();
    }

    static void run(
            URI rest,
            String bootstrap,
            String topic,
            String index,
            String esUrls,
            int parallelism,
            long checkpointMs,
            String from,
            String until)
            throws Exception {
        FIRST_READ.set(false);
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createRemoteEnvironment(rest.getHost(), rest.getPort(), new Configuration());
        env.setParallelism(parallelism);
        env.enableCheckpointing(checkpointMs);
        // a failure ends the run and the bench reports it; restarting would replay and inflate the counts
        env.setRestartStrategy(RestartStrategies.noRestart());

        Map<TopicPartition, Long> start = offsets(topic, from);
        KafkaSource<KafkaDocument> source = KafkaSource.<KafkaDocument>builder()
                .setBootstrapServers(bootstrap)
                .setTopics(topic)
                .setGroupId("kes-bench-official-" + index)
                .setStartingOffsets(OffsetsInitializer.offsets(start))
                .setBounded(
                        until == null ? OffsetsInitializer.latest() : OffsetsInitializer.offsets(offsets(topic, until)))
                .setDeserializer(new KafkaCoordinateDocuments())
                .build();

        HttpHost[] hosts =
                Arrays.stream(esUrls.split(",")).map(HttpHost::create).toArray(HttpHost[]::new);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "Kafka source")
                .sinkTo(new Elasticsearch7SinkBuilder<KafkaDocument>()
                        .setHosts(hosts)
                        .setBulkFlushMaxActions(1000)
                        .setBulkFlushMaxSizeMb(5)
                        .setBulkFlushInterval(1000)
                        // what a user sets so that a full write queue (429) is waited out, not a failed job
                        .setBulkFlushBackoffStrategy(FlushBackoffType.EXPONENTIAL, 8, 100)
                        .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                        .setEmitter((doc, context, indexer) ->
                                indexer.add(new IndexRequest(index).id(doc.id).source(doc.source, XContentType.JSON)))
                        .build())
                .name("official Elasticsearch sink");
        env.execute("kes-bench-official-" + index);
    }

    /** {@code partition:offset,...} of {@code topic}. */
    private static Map<TopicPartition, Long> offsets(String topic, String spec) {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        for (String po : spec.split(",")) {
            String[] f = po.split(":");
            offsets.put(new TopicPartition(topic, Integer.parseInt(f[0])), Long.parseLong(f[1]));
        }
        return offsets;
    }

    /** A record -> kes's Kafka-coordinate id and the value's bytes; the first one of a run says so on stdout. */
    static final class KafkaCoordinateDocuments implements KafkaRecordDeserializationSchema<KafkaDocument> {

        @Override
        public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<KafkaDocument> out) {
            if (!FIRST_READ.get() && FIRST_READ.compareAndSet(false, true)) {
                say("first-read");
            }
            out.collect(new KafkaDocument(
                    KafkaCoordinateIds.of(record.topic(), record.partition(), record.offset()), record.value()));
        }

        @Override
        public TypeInformation<KafkaDocument> getProducedType() {
            return TypeInformation.of(KafkaDocument.class);
        }
    }
}
