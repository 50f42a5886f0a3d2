package io.kes.jobs.decode;

import io.kes.connector.DocumentOperation;
import io.kes.connector.NonRecoverable;
import io.kes.connector.deadletter.DeadLetterQueue;
import io.kes.jobs.config.KesConfig;
import io.kes.jobs.config.Route;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * The decode step: each Kafka record becomes a document operation (see {@link DocumentBuilder}).
 * A record that cannot be decoded stops the job naming it ({@code errors.tolerance: none}) or goes
 * to the dead-letter topic with the reason ({@code all}); either way it is counted, never dropped.
 * Dead letters are flushed at every checkpoint.
 */
public final class RecordDecoder extends ProcessFunction<KafkaRecord, DocumentOperation>
        implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    private final KesConfig config;
    private transient Map<String, DocumentBuilder> builders;
    private transient DeadLetterQueue deadLetters;
    private transient Counter decodeFailures;

    public RecordDecoder(KesConfig config) {
        this.config = config;
    }

    @Override
    public void open(OpenContext openContext) {
        builders = new HashMap<>();
        decodeFailures = getRuntimeContext().getMetricGroup().addGroup("kes").counter("decodeFailures");
        if (config.errors.deadLetters()) {
            deadLetters = new DeadLetterQueue(
                    config.kafka.bootstrapServers(), config.kafka.properties(), config.errors.deadLetterTopic());
        }
    }

    @Override
    public void processElement(KafkaRecord record, Context ctx, Collector<DocumentOperation> out) {
        // not computeIfAbsent: its lambda captures this, and bin/kes run's JIT (C1) allocates one per record
        DocumentBuilder builder = builders.get(record.topic());
        if (builder == null) {
            builder = new DocumentBuilder(route(record.topic()), config.schemaRegistry);
            builders.put(record.topic(), builder);
        }
        try {
            out.collect(builder.build(record));
        } catch (DecodeException e) {
            decodeFailures.inc();
            if (deadLetters == null) {
                // The replay after a restart would meet the same record again: end the job instead.
                throw NonRecoverable.error(
                        "record " + record.coordinates() + " cannot become a document ("
                                + e.errorType() + "): " + e.getMessage()
                                + ". Fix the record or the route, or set errors.tolerance: all "
                                + "with a dead_letter_topic to keep the job running.",
                        e);
            }
            deadLetters.send(
                    DocumentBuilder.origin(record, true),
                    record.value(),
                    DeadLetterQueue.STAGE_DECODE,
                    e.errorType(),
                    0,
                    e.getMessage());
        }
    }

    private Route route(String topic) {
        return config.routeFor(topic);
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
        if (deadLetters != null) {
            deadLetters.flush();
        }
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {
        // stateless: offsets live in the Kafka source
    }

    @Override
    public void close() {
        if (deadLetters != null) {
            deadLetters.close();
        }
    }
}
