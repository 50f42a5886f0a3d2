package io.kes.jobs;

import io.kes.connector.ElasticsearchSink;
import io.kes.connector.ElasticsearchSinkBuilder;
import io.kes.jobs.config.ConfigException;
import io.kes.jobs.config.KafkaSettings;
import io.kes.jobs.config.KesConfig;
import io.kes.jobs.deadletter.DeadLetterFailureHandler;
import io.kes.jobs.decode.KafkaRecord;
import io.kes.jobs.decode.RawRecordDeserializer;
import io.kes.jobs.decode.RecordDecoder;
import io.kes.jobs.template.IndexTemplates;
import io.kes.jobs.checkpoint.Checkpoints;
import io.kes.jobs.checkpoint.FlinkConf;
import io.kes.jobs.checkpoint.JobSources;
import io.kes.jobs.source.FailFastSource;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.JobListener;
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

    /**
     * {@code --config mapping.yaml} (required); for the embedded MiniCluster also
     * {@code --flink-conf checkpoints-config/local.yaml}, {@code --restore <chk-n or savepoint path>}
     * or {@code --restore-latest} (the newest completed checkpoint of this job, see
     * {@link Checkpoints#restoreLatest}). On a cluster, restore with {@code flink run -s <path>}.
     *
     * <p>With {@code -Dkes.cli=true} (bin/kes) a failure ends the JVM with exit code 1 and a few
     * lines on the console ({@link JobFailure}); elsewhere it is thrown for Flink to report.
     */
    public static void main(String[] args) throws Exception {
        if (!Boolean.getBoolean("kes.cli")) {
            run(args);
            return;
        }
        try {
            run(args);
        } catch (Exception e) {
            JobFailure.report(e);
            System.exit(1);
        }
    }

    private static void run(String[] args) throws Exception {
        Map<String, String> options = arguments(args);
        KesConfig config = KesConfig.load(Path.of(require(options, "--config")));
        Configuration flink = options.containsKey("--flink-conf")
                ? FlinkConf.load(Path.of(options.get("--flink-conf"))).configuration()
                : new Configuration();
        JobSources sources = JobSources.of(config);
        // bin/kes run: the Flink configuration's checkpoint folder gets one subfolder per job name,
        // so that --restore-latest sees this job's checkpoints only.
        String checkpointDir = options.containsKey("--flink-conf") ? flink.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY) : null;
        String restore = options.get("--restore");
        if (options.containsKey("--restore-latest")) {
            String base = checkpointDir != null ? checkpointDir : new FlinkConf(flink).checkpointDir(); // says it is missing
            restore = Checkpoints.restoreLatest(base, sources, message -> System.out.println("[kes] " + message))
                    .map(p -> p.toUri().toString()).orElse(null);
        }
        if (restore != null) {
            flink.set(StateRecoveryOptions.SAVEPOINT_PATH, restore);
            System.out.println("[kes] restoring from " + restore);
        }
        String jobCheckpoints = checkpointDir != null ? Checkpoints.forJob(checkpointDir, config.job.name()) : null;
        if (jobCheckpoints != null) {
            flink.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, jobCheckpoints);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flink);
        if (jobCheckpoints != null && Checkpoints.isLocal(jobCheckpoints)) {
            env.registerJobListener(new SourcesBesideCheckpoints(jobCheckpoints, sources));
        }
        build(env, config);
        env.execute(config.job.name());
    }

    /**
     * Writes the job's {@link JobSources} into {@code <job checkpoints>/<job id>/} when Flink has
     * accepted the job, a checkpoint interval before its first checkpoint can complete.
     */
    private record SourcesBesideCheckpoints(String jobCheckpoints, JobSources sources) implements JobListener {
        @Override
        public void onJobSubmitted(JobClient client, Throwable failure) {
            if (client != null) {
                sources.writeTo(Checkpoints.toPath(jobCheckpoints).resolve(client.getJobID().toString()));
            }
        }

        @Override
        public void onJobExecuted(JobExecutionResult result, Throwable failure) {}
    }

    /** Puts the routes' index templates, then adds the pipeline to {@code env}, with checkpointing as configured. */
    public static void build(StreamExecutionEnvironment env, KesConfig config) {
        IndexTemplates.apply(config);
        if (config.job.parallelism() > 0) {
            env.setParallelism(config.job.parallelism());
        }
        // job.checkpoint_interval wins; else the Flink configuration's; else 10 s. Without
        // checkpoints nothing would ever be acknowledged back to Kafka.
        if (config.job.checkpointInterval() != null) {
            env.enableCheckpointing(config.job.checkpointInterval().toMillis());
        } else if (!env.getCheckpointConfig().isCheckpointingEnabled()) {
            env.enableCheckpointing(KesConfig.JobSettings.DEFAULT_CHECKPOINT_INTERVAL.toMillis());
        }
        ElasticsearchSinkBuilder sink = ElasticsearchSink.builder().setAll(config.sinkOptions);
        if (config.errors.deadLetters()) {
            sink.setFailureHandler(new DeadLetterFailureHandler(config.kafka.bootstrapServers(), config.kafka.properties(),
                    config.errors.deadLetterTopic()));
        }
        String topics = config.topicPattern() != null ? config.topicPattern().pattern() : String.join(",", config.allTopics());
        env.fromSource(FailFastSource.of(kafkaSource(config)), WatermarkStrategy.noWatermarks(), "kafka: " + topics)
                .uid("kes-kafka-source")
                .process(new RecordDecoder(config)).name("decode").uid("kes-decode")
                .sinkTo(sink.build())
                .name("elasticsearch").uid("kes-elasticsearch-sink");
    }

    /** Submits without waiting (tests, quick start). */
    public static JobClient start(StreamExecutionEnvironment env, KesConfig config) throws Exception {
        build(env, config);
        return env.executeAsync(config.job.name());
    }

    static KafkaSource<KafkaRecord> kafkaSource(KesConfig config) {
        KafkaSettings kafka = config.kafka;
        KafkaSourceBuilder<KafkaRecord> builder = KafkaSource.<KafkaRecord>builder()
                .setBootstrapServers(kafka.bootstrapServers())
                .setGroupId(kafka.groupId())
                .setProperties(sourceProperties(config))
                .setDeserializer(new RawRecordDeserializer())
                .setStartingOffsets(switch (kafka.startingOffsets()) {
                    case COMMITTED -> OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST);
                    case EARLIEST -> OffsetsInitializer.earliest();
                    case LATEST -> OffsetsInitializer.latest();
                    case TIMESTAMP -> OffsetsInitializer.timestamp(kafka.startingTimestampMillis());
                });
        if (config.topicPattern() != null) {
            builder.setTopicPattern(config.topicPattern());
        } else {
            builder.setTopics(config.allTopics());
        }
        if (config.job.bounded()) {
            builder.setBounded(OffsetsInitializer.latest());
        }
        return builder.build();
    }

    /**
     * The source's consumer properties: kes's defaults, overridden by {@code kafka.properties}.
     * Defaults: offsets committed to the group with every checkpoint (consumer-lag monitoring then
     * sees what is durable in Elasticsearch; the offsets kes restores from are in Flink's state
     * either way), and with a topic pattern, new matching topics join within 30 s.
     */
    static Properties sourceProperties(KesConfig config) {
        Properties props = new Properties();
        props.setProperty("commit.offsets.on.checkpoint", "true");
        if (config.topicPattern() != null) {
            props.setProperty("partition.discovery.interval.ms", "30000");
        }
        props.putAll(config.kafka.properties());
        return props;
    }

    private static final String USAGE = "usage: kes-job --config <mapping.yaml> [--flink-conf <flink config.yaml>] "
            + "[--restore <checkpoint or savepoint path> | --restore-latest]";

    static Map<String, String> arguments(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--restore-latest" -> options.put(args[i], "true");
                case "--config", "--flink-conf", "--restore" -> {
                    if (i + 1 >= args.length) {
                        throw new ConfigException(args[i] + " needs a value. " + USAGE);
                    }
                    options.put(args[i], args[++i]);
                }
                default -> throw new ConfigException("unknown argument '" + args[i] + "'. " + USAGE);
            }
        }
        if (options.containsKey("--restore") && options.containsKey("--restore-latest")) {
            throw new ConfigException("give either --restore <path> or --restore-latest, not both");
        }
        return options;
    }

    private static String require(Map<String, String> options, String key) {
        String value = options.get(key);
        if (value == null) {
            throw new ConfigException(key + " is required. " + USAGE);
        }
        return value;
    }
}
