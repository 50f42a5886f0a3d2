package io.kes.jobs.source;

import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;

/**
 * The split enumerator's context, unchanged except for the results of its asynchronous calls: what
 * a handler throws passes through {@link KafkaAuthentication#classify} before Flink sees it. Flink
 * turns a handler's exception into a failure of the whole job, restarted under the restart
 * strategy; the Kafka enumerator's handlers throw on any error of its admin client (listing
 * partitions, reading offsets), a refused login included.
 */
final class FailFastEnumeratorContext<SplitT extends SourceSplit> implements SplitEnumeratorContext<SplitT> {

    private final SplitEnumeratorContext<SplitT> context;

    FailFastEnumeratorContext(SplitEnumeratorContext<SplitT> context) {
        this.context = context;
    }

    @Override
    public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler) {
        context.callAsync(callable, classified(handler));
    }

    @Override
    public <T> void callAsync(
            Callable<T> callable, BiConsumer<T, Throwable> handler, long initialDelayMillis, long periodMillis) {
        context.callAsync(callable, classified(handler), initialDelayMillis, periodMillis);
    }

    private static <T> BiConsumer<T, Throwable> classified(BiConsumer<T, Throwable> handler) {
        return (result, error) -> {
            try {
                handler.accept(result, error);
            } catch (Throwable t) {
                Exception classified = KafkaAuthentication.classify(t);
                throw classified instanceof RuntimeException r ? r : new RuntimeException(classified);
            }
        };
    }

    @Override
    public SplitEnumeratorMetricGroup metricGroup() {
        return context.metricGroup();
    }

    @Override
    public void sendEventToSourceReader(int subtaskId, SourceEvent event) {
        context.sendEventToSourceReader(subtaskId, event);
    }

    @Override
    public void sendEventToSourceReader(int subtaskId, int attemptNumber, SourceEvent event) {
        context.sendEventToSourceReader(subtaskId, attemptNumber, event);
    }

    @Override
    public int currentParallelism() {
        return context.currentParallelism();
    }

    @Override
    public Map<Integer, ReaderInfo> registeredReaders() {
        return context.registeredReaders();
    }

    @Override
    public Map<Integer, Map<Integer, ReaderInfo>> registeredReadersOfAttempts() {
        return context.registeredReadersOfAttempts();
    }

    @Override
    public void assignSplits(SplitsAssignment<SplitT> newSplitAssignments) {
        context.assignSplits(newSplitAssignments);
    }

    @Override
    public void assignSplit(SplitT split, int subtask) {
        context.assignSplit(split, subtask);
    }

    @Override
    public void signalNoMoreSplits(int subtask) {
        context.signalNoMoreSplits(subtask);
    }

    @Override
    public void runInCoordinatorThread(Runnable runnable) {
        context.runInCoordinatorThread(runnable);
    }

    @Override
    public void setIsProcessingBacklog(boolean isProcessingBacklog) {
        context.setIsProcessingBacklog(isProcessingBacklog);
    }
}
