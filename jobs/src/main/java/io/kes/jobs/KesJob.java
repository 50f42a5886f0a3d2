package io.kes.jobs;

import io.kes.connector.ElasticsearchSink;
import io.kes.connector.FailureHandler;
import io.kes.connector.deadletter.DeadLetterFailureHandler;
import io.kes.jobs.cli.EarlyMiniCluster;
import io.kes.jobs.cli.ExitCode;
import io.kes.jobs.cli.Flag;
import io.kes.jobs.cli.ProgressReporter;
import io.kes.jobs.cli.RunProgress;
import io.kes.jobs.cli.UserErrors;
import io.kes.jobs.cli.WebUi;
import io.kes.jobs.config.KesConfig;
import io.kes.jobs.config.Route;
import io.kes.jobs.decode.RecordDecoder;
import io.kes.jobs.preflight.Preflight;
import io.kes.jobs.preflight.PreflightReport;
import io.kes.jobs.restore.Checkpoints;
import io.kes.jobs.restore.FlinkConf;
import io.kes.jobs.restore.JobSources;
import io.kes.jobs.restore.PartitionCounts;
import io.kes.jobs.source.FailFastSource;
import io.kes.jobs.source.KesKafkaSource;
import io.kes.jobs.template.IndexTemplates;
import java.nio.file.Path;
import java.util.Map;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.JobListener;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

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
     * {@link Checkpoints#restoreLatest}); every flag is in {@link Flag}. On a cluster, restore with
     * {@code flink run -s <path>}.
     *
     * <p>With {@code -Dkes.cli=true} (bin/kes run) the job is checked first ({@link Preflight}),
     * runs with the Flink web UI and progress lines ({@link RunProgress}), and ends the JVM with an
     * {@link ExitCode}: user errors (config, connection, credentials, topics) in a few
     * {@code kes: ...} lines ({@link UserErrors}), a failed job in a few lines ({@link JobFailure});
     * stack traces in the log file. Elsewhere a failure is thrown for Flink to report.
     */
    public static void main(String[] args) throws Exception {
        if (!Boolean.getBoolean("kes.cli")) {
            Setup setup =
                    setup(Flag.parse(args, Flag.RUN, "kes-job"), message -> System.out.println("[kes] " + message));
            build(setup.env, setup.config);
            setup.env.execute(setup.config.job.name());
            return;
        }
        UserErrors.exitWith(args, () -> runCli(args), JobFailure::report);
    }

    static final String COMMAND = "bin/kes run";

    /** bin/kes run: check, start in the embedded MiniCluster with its web UI, print progress until the job ends. */
    private static ExitCode runCli(String[] args) throws Exception {
        Map<Flag, String> options = Flag.parse(args, Flag.RUN, COMMAND);
        if (options.containsKey(Flag.HELP)) {
            System.out.print(Flag.help(
                    COMMAND,
                    "Runs the kes job in an embedded Flink MiniCluster: checks Elasticsearch and Kafka "
                            + "first, then prints progress.",
                    Flag.RUN));
            return ExitCode.OK;
        }
        boolean quiet = options.containsKey(Flag.QUIET);
        Setup setup = setup(options, message -> System.out.println("[kes] " + message));
        String webUi = WebUi.enable(setup.flink);
        setup.flink.setString("metrics.reporter.kesprogress.factory.class", ProgressReporter.Factory.class.getName());
        setup.flink.setString("metrics.reporter.kesprogress.interval", "1 s");
        if (!setup.flink.contains(RestOptions.CACHE_CHECKPOINT_STATISTICS_TIMEOUT)) {
            // fresh statistics when RunProgress reads a failed checkpoint's message (Flink caches them 3 s)
            setup.flink.set(RestOptions.CACHE_CHECKPOINT_STATISTICS_TIMEOUT, RunProgress.BOUNDED_POLL);
        }
        // the cluster starts while the job is checked and built; a failed check closes it unused
        EarlyMiniCluster cluster = EarlyMiniCluster.start(setup.flink, setup.config.job.parallelism());
        JobClient job;
        try {
            if (!options.containsKey(Flag.NO_CHECK)) {
                PreflightReport report = Preflight.run(setup.config, setup.restore != null);
                if (!quiet) {
                    System.out.println("[kes] check: " + (report.failed() ? "failed" : "ok") + " ("
                            + report.rows().size() + " checks; the table: bin/kes check --config "
                            + options.get(Flag.CONFIG) + ")");
                    if (!report.failed() && report.problemsTable().lines().count() > 1) {
                        System.out.print(
                                report.problemsTable()); // the warnings; failures are printed as the error below
                    }
                }
                Preflight.requireOk(report);
            }
            StreamExecutionEnvironment env = setup.environment(cluster.environment());
            build(env, setup.config);
            job = env.executeAsync(setup.config.job.name());
        } catch (Exception e) {
            cluster.discard();
            throw e;
        }
        RunProgress progress = new RunProgress(setup.config, job, webUi, System.out);
        if (!quiet) {
            progress.banner(setup.restore, System.getProperty("kes.log.file"));
        }
        progress.untilDone(quiet);
        return ExitCode.OK;
    }

    /** The config, the Flink configuration and where the job starts from, as the options say. */
    private static final class Setup {
        final KesConfig config;
        final Configuration flink;
        final String restore;
        final String jobCheckpoints;
        final JobSources sources;
        StreamExecutionEnvironment env;

        Setup(KesConfig config, Configuration flink, String restore, String jobCheckpoints, JobSources sources) {
            this.config = config;
            this.flink = flink;
            this.restore = restore;
            this.jobCheckpoints = jobCheckpoints;
            this.sources = sources;
        }

        StreamExecutionEnvironment environment() {
            return environment(StreamExecutionEnvironment.getExecutionEnvironment(flink));
        }

        /** {@code local}, with this setup's job listener. */
        StreamExecutionEnvironment environment(StreamExecutionEnvironment local) {
            env = local;
            if (jobCheckpoints != null && Checkpoints.isLocal(jobCheckpoints)) {
                env.registerJobListener(new SourcesBesideCheckpoints(jobCheckpoints, sources));
            }
            return env;
        }
    }

    private static Setup setup(Map<Flag, String> options, java.util.function.Consumer<String> say) {
        String file = options.get(Flag.CONFIG);
        if (file == null) {
            throw new Flag.UsageException("--config is required. " + USAGE);
        }
        KesConfig config = KesConfig.load(Path.of(file));
        Configuration flink = options.containsKey(Flag.FLINK_CONF)
                ? FlinkConf.load(Path.of(options.get(Flag.FLINK_CONF))).configuration()
                : new Configuration();
        JobSources sources = JobSources.of(config);
        // bin/kes run: the Flink configuration's checkpoint folder gets one subfolder per job name,
        // so that --restore-latest sees this job's checkpoints only.
        String checkpointDir =
                options.containsKey(Flag.FLINK_CONF) ? flink.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY) : null;
        if (checkpointDir != null) {
            // kept beside the checkpoints, and compared on --restore-latest: added partitions move keys
            sources = sources.withPartitions(PartitionCounts.read(config.kafka, sources.topics()));
        }
        String restore = options.get(Flag.RESTORE);
        if (options.containsKey(Flag.RESTORE_LATEST)) {
            String base =
                    checkpointDir != null ? checkpointDir : new FlinkConf(flink).checkpointDir(); // says it is missing
            restore = Checkpoints.restoreLatest(base, sources, say)
                    .map(p -> p.toUri().toString())
                    .orElse(null);
        }
        if (restore != null) {
            flink.set(StateRecoveryOptions.SAVEPOINT_PATH, restore);
            say.accept("restoring from " + restore);
        }
        String jobCheckpoints = checkpointDir != null ? Checkpoints.forJob(checkpointDir, config.job.name()) : null;
        if (jobCheckpoints != null) {
            flink.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, jobCheckpoints);
        }
        Setup setup = new Setup(config, flink, restore, jobCheckpoints, sources);
        if (!Boolean.getBoolean("kes.cli")) {
            setup.environment();
        }
        return setup;
    }

    /**
     * Writes the job's {@link JobSources} into {@code <job checkpoints>/<job id>/} when Flink has
     * accepted the job, a checkpoint interval before its first checkpoint can complete.
     */
    private record SourcesBesideCheckpoints(String jobCheckpoints, JobSources sources) implements JobListener {
        @Override
        public void onJobSubmitted(JobClient client, Throwable failure) {
            if (client != null) {
                sources.writeTo(Checkpoints.toPath(jobCheckpoints)
                        .resolve(client.getJobID().toString()));
            }
        }

        @Override
        public void onJobExecuted(JobExecutionResult result, Throwable failure) {}
    }

    /** Puts the routes' index templates, then adds the pipeline to {@code env}, with checkpointing as configured. */
    public static void build(StreamExecutionEnvironment env, KesConfig config) {
        // Restored from a checkpoint or savepoint, the job reached Elasticsearch before and rides out an outage.
        boolean restoring = env.getConfiguration()
                .getOptional(StateRecoveryOptions.SAVEPOINT_PATH)
                .isPresent();
        IndexTemplates.apply(config, restoring);
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
        // The job emits no watermarks; Flink's default interval (200 ms) would still run a timer on
        // every source task whose mail emits nothing: its timer threads took 0.8% of the keyed job's
        // CPU samples at 48 shards (none without it).
        env.getConfig().setAutoWatermarkInterval(0);
        FailureHandler failures = config.errors.deadLetters()
                ? new DeadLetterFailureHandler(
                        config.kafka.bootstrapServers(), config.kafka.properties(), config.errors.deadLetterTopic())
                : FailureHandler.failJob();
        String topics =
                config.topicPattern() != null ? config.topicPattern().pattern() : String.join(",", config.allTopics());
        // Short names: Flink joins the chained operators' names into one task name ("Source: kafka -> decode
        // -> es: kes: bulk writer -> es: Writer") and truncates, with a warning, past 80 characters; the
        // topics go in the description, which the web UI shows. The uids keep state compatible.
        env.fromSource(FailFastSource.of(KesKafkaSource.of(config)), WatermarkStrategy.noWatermarks(), "kafka")
                .setDescription("kafka: " + topics)
                .uid("kes-kafka-source")
                .process(new RecordDecoder(config))
                .name("decode")
                .uid("kes-decode")
                .sinkTo(ElasticsearchSink.of(config.sink, failures)
                        .writingTo(config.routes.stream().map(Route::target).toList()))
                .name("es")
                .setDescription("elasticsearch: "
                        + String.join(
                                ",",
                                config.sink.hosts().stream()
                                        .map(Object::toString)
                                        .toList()))
                .uid("kes-elasticsearch-sink");
    }

    /** Submits without waiting (tests, quick start). */
    public static JobClient start(StreamExecutionEnvironment env, KesConfig config) throws Exception {
        build(env, config);
        return env.executeAsync(config.job.name());
    }

    private static final String USAGE = "usage: kes-job --config <mapping.yaml> [--flink-conf <flink config.yaml>] "
            + "[--restore <checkpoint or savepoint path> | --restore-latest]; all flags: bin/kes run --help";
}
