package io.kes.connector;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/** Runs the sink in a MiniCluster on a generated stream of documents (test support). */
public final class SinkPipelines {

    private SinkPipelines() {}

    /** {@code count} documents {@code {"n": i}} with ids {@code doc-i}; {@code perSecond <= 0} means unthrottled. */
    public static JobClient start(
            ElasticsearchSink sink,
            String index,
            long count,
            double perSecond,
            int parallelism,
            Duration checkpointInterval)
            throws Exception {
        return start(
                sink,
                count,
                perSecond,
                parallelism,
                checkpointInterval,
                i -> DocumentOperation.index(
                        index, "doc-" + i, ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * Without a checkpoint interval the job fails at the first error (tests of failures); with one
     * it restarts from its last checkpoint, as a production job does.
     */
    public static JobClient start(
            ElasticsearchSink sink,
            long count,
            double perSecond,
            int parallelism,
            Duration checkpointInterval,
            GeneratorFunction<Long, DocumentOperation> documents)
            throws Exception {
        Configuration conf = new Configuration();
        conf.setString("metrics.reporter.rec.factory.class", RecordingReporter.Factory.class.getName());
        if (checkpointInterval == null) {
            conf.setString("restart-strategy.type", "none");
        } else {
            conf.setString("restart-strategy.type", "fixed-delay");
            conf.setString("restart-strategy.fixed-delay.attempts", "20");
            conf.setString("restart-strategy.fixed-delay.delay", "1s");
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
        if (checkpointInterval != null) {
            env.enableCheckpointing(checkpointInterval.toMillis());
        }
        RecordingReporter.reset();
        DataGeneratorSource<DocumentOperation> source = new DataGeneratorSource<>(
                documents,
                count,
                perSecond > 0 ? RateLimiterStrategy.perSecond(perSecond) : RateLimiterStrategy.noOp(),
                TypeInformation.of(DocumentOperation.class));
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "documents").sinkTo(sink);
        return env.executeAsync("sink-it");
    }

    /** Runs to the end and rethrows the job's failure. */
    public static void run(ElasticsearchSink sink, String index, long count, int parallelism) throws Exception {
        start(sink, index, count, 0, parallelism, null).getJobExecutionResult().get();
    }
}
