package io.kes.jobs;

import io.kes.connector.DocumentOperation;
import io.kes.connector.ElasticsearchSink;
import io.kes.jobs.config.ConfigException;
import io.kes.jobs.config.KafkaSettings;
import io.kes.jobs.config.KesConfig;
import io.kes.jobs.decode.RecordDecoder;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;

/**
 * The kes job: Kafka topics → decode → route to shards → single-shard bulks → Elasticsearch.
 *
 * <p>One code path for both ways to run it: {@code flink run kes-job.jar --config mapping.yaml}
 * on a Flink cluster, and {@code bin/kes run --config mapping.yaml}, where the same
 * {@code main} finds no cluster and starts an embedded MiniCluster.
 */
public final class KesJob {

    private KesJob() {}

    public static void main(String[] args) throws Exception {
        Path configFile = configArgument(args);
        KesConfig config = KesConfig.load(configFile);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        build(env, config);
        env.execute(config.job.name());
    }

    /** Adds the pipeline to {@code env}, with checkpointing as configured. */
    public static void build(StreamExecutionEnvironment env, KesConfig config) {
        if (config.job.parallelism() > 0) {
            env.setParallelism(config.job.parallelism());
        }
        env.enableCheckpointing(config.job.checkpointInterval().toMillis());
        env.fromSource(kafkaSource(config), WatermarkStrategy.noWatermarks(), "kafka: " + String.join(",", config.allTopics()))
                .uid("kes-kafka-source")
                .sinkTo(ElasticsearchSink.builder().setAll(config.sinkOptions).build())
                .name("elasticsearch").uid("kes-elasticsearch-sink");
    }

    /** Submits without waiting (tests, quick start). */
    public static JobClient start(StreamExecutionEnvironment env, KesConfig config) throws Exception {
        build(env, config);
        return env.executeAsync(config.job.name());
    }

    static KafkaSource<DocumentOperation> kafkaSource(KesConfig config) {
        KafkaSettings kafka = config.kafka;
        Properties props = new Properties();
        props.putAll(kafka.properties());
        KafkaSourceBuilder<DocumentOperation> builder = KafkaSource.<DocumentOperation>builder()
                .setBootstrapServers(kafka.bootstrapServers())
                .setGroupId(kafka.groupId())
                .setTopics(config.allTopics())
                .setProperties(props)
                .setProperty("commit.offsets.on.checkpoint", "true")
                .setDeserializer(new RecordDecoder(config))
                .setStartingOffsets(switch (kafka.startingOffsets()) {
                    case COMMITTED -> OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST);
                    case EARLIEST -> OffsetsInitializer.earliest();
                    case LATEST -> OffsetsInitializer.latest();
                });
        if (config.job.bounded()) {
            builder.setBounded(OffsetsInitializer.latest());
        }
        return builder.build();
    }

    static Path configArgument(String[] args) {
        for (int i = 0; i < args.length - 1; i++) {
            if ("--config".equals(args[i])) {
                return Path.of(args[i + 1]);
            }
        }
        throw new ConfigException("usage: kes-job --config <mapping.yaml>");
    }
}
