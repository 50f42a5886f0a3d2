package io.kes.connector;

import java.io.Serializable;
import java.util.List;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Receives the writes Elasticsearch refused for good (mapping conflicts, unparsable documents,
 * rejected index names...). The default {@link #failJob()} stops the job naming the record; the
 * kes job wires a dead-letter topic. {@link #onFailures} is called on the writer's task thread,
 * {@link #flush()} on the writer's checkpoint thread, possibly while more failures come in.
 *
 * <p>Never drop a failure silently: an implementation either keeps the record somewhere durable
 * by the time {@link #flush()} returns, or throws.
 */
@PublicEvolving
public interface FailureHandler extends Serializable {

    /** Opens resources on the task manager. */
    default void open(int subtaskIndex) throws Exception {}

    void onFailures(List<FailedOperation> failures) throws Exception;

    /**
     * Writes a data stream refused and Elasticsearch kept in its failure store (9.1+: the bulk item
     * answers success with {@code failure_store: used}; the failure store document holds the
     * reason). They are not lost, so the default does nothing more than the writer's count
     * ({@code failureStoreRedirects}) and warning; the dead-letter handler sends them to its topic
     * too, like refused writes.
     */
    default void onFailureStored(List<FailedOperation> stored) throws Exception {}

    /** Called at each checkpoint: make everything handed over so far durable. */
    default void flush() throws Exception {}

    default void close() throws Exception {}

    /** Stops the job at the first refused write, naming the record and Elasticsearch's reason. */
    static FailureHandler failJob() {
        return new FailJob();
    }

    /** See {@link FailureHandler#failJob()}. */
    final class FailJob implements FailureHandler {
        private static final long serialVersionUID = 1L;

        @Override
        public void onFailures(List<FailedOperation> failures) {
            FailedOperation first = failures.get(0);
            throw new PermanentWriteException(
                    first.describe()
                            + (failures.size() > 1 ? " (and " + (failures.size() - 1) + " more in the same bulk)" : "")
                            + ". Fix the record or the index mapping, or configure a dead-letter topic"
                            + " (the kes job: errors.tolerance: all; a SQL table: 'failure-handler' = 'dead-letter') to keep the job running.");
        }
    }

    /** A write that can never succeed as it is. */
    final class PermanentWriteException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public PermanentWriteException(String message) {
            super(message);
        }
    }
}
