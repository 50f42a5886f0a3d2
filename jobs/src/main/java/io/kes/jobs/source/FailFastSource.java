package io.kes.jobs.source;

import io.kes.connector.NonRecoverable;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.lineage.LineageVertex;
import org.apache.flink.streaming.api.lineage.LineageVertexProvider;

/**
 * A source (the Kafka source) whose failures that no restart can cure end the job (see
 * {@link NonRecoverable}, {@link KafkaAuthentication}). The cases it exists for:
 * <ul>
 *   <li>Kafka decompresses fetched batches in the source's fetcher thread, so a codec missing from
 *       the classpath (lz4, snappy, zstd) surfaces as a {@code NoClassDefFoundError} inside the
 *       Kafka connector, where kes cannot catch it; it reaches the task through the reader's
 *       {@code pollNext}, and is classified here.</li>
 *   <li>Kafka refusing the credentials of {@code kafka.properties}: the first to meet it is the
 *       split enumerator, which lists the topics' partitions with an admin client on the job
 *       manager and fails the whole job from a callback of its context (Flink then restarts it,
 *       for ever); the context handed to the enumerator classifies what its callbacks throw.</li>
 * </ul>
 *
 * <p>Everything else is the wrapped source's: splits, enumerator, state and its serializers are
 * unchanged, so checkpoints taken with or without the wrapper restore into each other.
 */
public final class FailFastSource<T, SplitT extends SourceSplit, EnumChkT>
        implements Source<T, SplitT, EnumChkT>, ResultTypeQueryable<T>, LineageVertexProvider {

    private static final long serialVersionUID = 1L;

    private final Source<T, SplitT, EnumChkT> source;

    private FailFastSource(Source<T, SplitT, EnumChkT> source) {
        this.source = source;
    }

    public static <
                    T,
                    SplitT extends SourceSplit,
                    EnumChkT,
                    S extends Source<T, SplitT, EnumChkT> & ResultTypeQueryable<T>>
            FailFastSource<T, SplitT, EnumChkT> of(S source) {
        return new FailFastSource<>(source);
    }

    @Override
    public Boundedness getBoundedness() {
        return source.getBoundedness();
    }

    @Override
    public SourceReader<T, SplitT> createReader(SourceReaderContext context) throws Exception {
        return new Reader<>(source.createReader(context));
    }

    @Override
    public SplitEnumerator<SplitT, EnumChkT> createEnumerator(SplitEnumeratorContext<SplitT> context) throws Exception {
        return source.createEnumerator(new FailFastEnumeratorContext<>(context));
    }

    @Override
    public SplitEnumerator<SplitT, EnumChkT> restoreEnumerator(
            SplitEnumeratorContext<SplitT> context, EnumChkT checkpoint) throws Exception {
        return source.restoreEnumerator(new FailFastEnumeratorContext<>(context), checkpoint);
    }

    @Override
    public SimpleVersionedSerializer<SplitT> getSplitSerializer() {
        return source.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<EnumChkT> getEnumeratorCheckpointSerializer() {
        return source.getEnumeratorCheckpointSerializer();
    }

    @Override
    @SuppressWarnings("unchecked")
    public TypeInformation<T> getProducedType() {
        return ((ResultTypeQueryable<T>) source).getProducedType();
    }

    @Override
    public LineageVertex getLineageVertex() {
        return source instanceof LineageVertexProvider provider ? provider.getLineageVertex() : null;
    }

    /** Delegates everything; a failure passes through {@link KafkaAuthentication#classify}. */
    private static final class Reader<T, SplitT extends SourceSplit> implements SourceReader<T, SplitT> {

        private final SourceReader<T, SplitT> reader;

        Reader(SourceReader<T, SplitT> reader) {
            this.reader = reader;
        }

        @Override
        public void start() {
            try {
                reader.start();
            } catch (Throwable t) {
                throw unchecked(t);
            }
        }

        @Override
        public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
            try {
                return reader.pollNext(output);
            } catch (Throwable t) {
                throw KafkaAuthentication.classify(t);
            }
        }

        @Override
        public List<SplitT> snapshotState(long checkpointId) {
            return reader.snapshotState(checkpointId);
        }

        @Override
        public CompletableFuture<Void> isAvailable() {
            return reader.isAvailable();
        }

        @Override
        public void addSplits(List<SplitT> splits) {
            reader.addSplits(splits);
        }

        @Override
        public void notifyNoMoreSplits() {
            reader.notifyNoMoreSplits();
        }

        @Override
        public void handleSourceEvents(SourceEvent event) {
            reader.handleSourceEvents(event);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            reader.notifyCheckpointComplete(checkpointId);
        }

        @Override
        public void notifyCheckpointAborted(long checkpointId) throws Exception {
            reader.notifyCheckpointAborted(checkpointId);
        }

        @Override
        public void pauseOrResumeSplits(Collection<String> splitsToPause, Collection<String> splitsToResume) {
            reader.pauseOrResumeSplits(splitsToPause, splitsToResume);
        }

        @Override
        public void close() throws Exception {
            reader.close();
        }

        private static RuntimeException unchecked(Throwable t) {
            Exception classified = KafkaAuthentication.classify(t);
            return classified instanceof RuntimeException r ? r : new RuntimeException(classified);
        }
    }
}
