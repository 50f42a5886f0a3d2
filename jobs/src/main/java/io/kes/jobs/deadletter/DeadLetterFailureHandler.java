package io.kes.jobs.deadletter;

import io.kes.connector.DocumentOperation;
import io.kes.connector.FailedOperation;
import io.kes.connector.FailureHandler;
import io.kes.connector.RecordOrigin;
import java.util.List;
import java.util.Map;

/** Sends writes Elasticsearch refused for good to the dead-letter topic (stage {@code index}). */
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
            queue.send(origin, value, DeadLetterQueue.STAGE_INDEX, f.errorType(), f.status(),
                    f.reason() + " (index " + op.index() + ", id " + op.id() + ")");
        }
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
