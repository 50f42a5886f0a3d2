package io.kes.connector.deadletter;

import io.kes.connector.DocumentOperation;
import io.kes.connector.FailedOperation;
import io.kes.connector.FailureHandler;
import io.kes.connector.RecordOrigin;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Sends writes Elasticsearch refused for good to a Kafka dead-letter topic (stage {@code index}),
 * with their record's key and headers and kes's {@code kes.*} headers ({@link DeadLetterQueue}).
 * The value is the record's original value when the writer kept it, else the document's source.
 * A checkpoint completes only once its dead letters are acknowledged by Kafka ({@link #flush()}).
 * Needs {@code kafka-clients} on the classpath.
 */
@PublicEvolving
public final class DeadLetterFailureHandler implements FailureHandler {

    private static final long serialVersionUID = 1L;

    private final String bootstrapServers;
    private final Map<String, String> clientProperties;
    private final String topic;
    private transient DeadLetterQueue queue;

    public DeadLetterFailureHandler(String bootstrapServers, Map<String, String> clientProperties, String topic) {
        this.bootstrapServers = bootstrapServers;
        this.clientProperties = Map.copyOf(clientProperties);
        this.topic = topic;
    }

    @Override
    public void open(int subtaskIndex) {
        queue = new DeadLetterQueue(bootstrapServers, clientProperties, topic);
    }

    @Override
    public void onFailures(List<FailedOperation> failures) {
        for (FailedOperation f : failures) {
            DocumentOperation op = f.operation();
            RecordOrigin origin = op.origin();
            // Without an original value the source is the value, unchanged (null for a tombstone's delete).
            byte[] value = origin.originalValue() != null ? origin.originalValue() : op.source();
            queue.send(
                    origin,
                    value,
                    DeadLetterQueue.STAGE_INDEX,
                    f.errorType(),
                    f.status(),
                    f.reason() + " (index " + op.index() + ", id " + op.id() + ")");
        }
    }

    /** Like refused writes: the topic is where a user looks for what did not reach the data stream. */
    @Override
    public void onFailureStored(List<FailedOperation> stored) {
        onFailures(stored);
    }

    @Override
    public void flush() {
        queue.flush();
    }

    @Override
    public void close() {
        if (queue != null) {
            queue.close();
        }
    }
}
