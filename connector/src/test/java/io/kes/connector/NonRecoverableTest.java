package io.kes.connector;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.apache.flink.runtime.throwable.ThrowableClassifier;
import org.apache.flink.runtime.throwable.ThrowableType;
import org.apache.flink.util.SerializedThrowable;
import org.junit.jupiter.api.Test;

/**
 * A task's failure reaches Flink's failover as a {@link SerializedThrowable}: when any exception
 * in its chain cannot be serialized (the REST client's ResponseException holds the Response), Flink
 * keeps only text, the {@code SuppressRestartsException} is lost, and the job restarts for ever.
 */
class NonRecoverableTest {

    /** Like org.elasticsearch.client.ResponseException: an IOException holding something that cannot be serialized. */
    static final class HoldsAResponse extends IOException {
        private final Object response = new Object();

        HoldsAResponse(String message) {
            super(message);
        }
    }

    @Test
    void anErrorCausedByAnUnserializableExceptionStillSuppressesRestartsAfterFlinkSerializedIt() {
        Exception failure = new IOException(
                "Failed to deserialize consumer record due to",
                NonRecoverable.error(
                        "Elasticsearch refused kes's credentials (HTTP 401)",
                        new HoldsAResponse("status line [HTTP/1.1 401]")));

        Throwable asFlinkSeesIt =
                new SerializedThrowable(failure).deserializeError(getClass().getClassLoader());

        assertThat(ThrowableClassifier.findThrowableOfThrowableType(asFlinkSeesIt, ThrowableType.NonRecoverableError))
                .isPresent();
        assertThat(NonRecoverable.isNonRecoverable(asFlinkSeesIt)).isTrue();
        assertThat(stackTraceOf(asFlinkSeesIt)).contains("HTTP 401", "HoldsAResponse", "status line [HTTP/1.1 401]");
    }

    @Test
    void aClassifiedFailureWithAnUnserializableCauseStillSuppressesRestartsAfterFlinkSerializedIt() {
        Exception classified =
                NonRecoverable.classify(new IllegalStateException("x", new NoClassDefFoundError("net/jpountz/lz4/X")));
        Throwable wrapped = new RuntimeException(new org.apache.flink.runtime.execution.SuppressRestartsException(
                new IllegalStateException("y", new HoldsAResponse("z"))));

        assertThat(ThrowableClassifier.findThrowableOfThrowableType(
                        new SerializedThrowable(classified)
                                .deserializeError(getClass().getClassLoader()),
                        ThrowableType.NonRecoverableError))
                .isPresent();
        assertThat(ThrowableClassifier.findThrowableOfThrowableType(
                        new SerializedThrowable(NonRecoverable.classify(wrapped))
                                .deserializeError(getClass().getClassLoader()),
                        ThrowableType.NonRecoverableError))
                .isPresent();
    }

    private static String stackTraceOf(Throwable t) {
        java.io.StringWriter out = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(out));
        return out.toString();
    }
}
