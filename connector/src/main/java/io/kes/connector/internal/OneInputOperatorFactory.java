package io.kes.connector.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.api.operators.AbstractStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.util.function.SerializableFunction;

/**
 * The factory of a one-input operator that takes its {@link StreamOperatorParameters} in its
 * constructor (Flink 2's way: output, config and mailbox exist before the operator does), which
 * Flink's {@code SimpleOperatorFactory} cannot build since it wraps a finished instance. The
 * constructor is a serializable lambda: what it captures (the sink's settings) is shipped with the
 * job graph, and each subtask calls it once.
 */
@Internal
public final class OneInputOperatorFactory<IN, OUT> extends AbstractStreamOperatorFactory<OUT>
        implements OneInputStreamOperatorFactory<IN, OUT> {

    private static final long serialVersionUID = 1L;

    @SuppressWarnings("rawtypes")
    private final Class<? extends StreamOperator> operatorClass;

    private final SerializableFunction<StreamOperatorParameters<OUT>, OneInputStreamOperator<IN, OUT>> constructor;

    /** {@code operatorClass}: what {@code constructor} returns, which Flink asks for before it creates one. */
    @SuppressWarnings("rawtypes")
    public OneInputOperatorFactory(
            Class<? extends StreamOperator> operatorClass,
            SerializableFunction<StreamOperatorParameters<OUT>, OneInputStreamOperator<IN, OUT>> constructor) {
        this.operatorClass = operatorClass;
        this.constructor = constructor;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends StreamOperator<OUT>> T createStreamOperator(StreamOperatorParameters<OUT> parameters) {
        return (T) constructor.apply(parameters);
    }

    @Override
    @SuppressWarnings("rawtypes")
    public Class<? extends StreamOperator> getStreamOperatorClass(ClassLoader classLoader) {
        return operatorClass;
    }
}
