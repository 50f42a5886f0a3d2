package io.kes.jobs.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.kes.connector.NonRecoverable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.util.FlinkRuntimeException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

class KafkaAuthenticationTest {

    @Test
    void aRefusedLoginAnywhereInTheCausesEndsTheJobNamingKafkaProperties() {
        Exception failure = new FlinkRuntimeException(
                "Failed to list subscribed topic partitions due to ",
                new SaslAuthenticationException(
                        "Authentication failed during authentication due to invalid credentials"));
        Exception classified = KafkaAuthentication.classify(failure);
        assertThat(NonRecoverable.isNonRecoverable(classified)).isTrue();
        assertThat(classified.getCause().getMessage())
                .startsWith(
                        "Kafka refused the job's credentials (SaslAuthenticationException: "
                                + "Authentication failed during authentication due to invalid credentials); fix kafka.properties: ");
        assertThat(classified.getCause().getCause()).isSameAs(failure);
    }

    @Test
    void aRefusedCertificateEndsTheJobToo() {
        assertThat(NonRecoverable.isNonRecoverable(
                        KafkaAuthentication.classify(new SslAuthenticationException("SSL handshake failed"))))
                .isTrue();
    }

    @Test
    void otherFailuresAreLeftToTheRestartStrategy() {
        TimeoutException timeout = new TimeoutException("Timed out waiting for a node assignment");
        assertThat(KafkaAuthentication.classify(timeout)).isSameAs(timeout);
    }

    /** The Kafka enumerator throws from the handler of its admin client's call; Flink must see the classified failure. */
    @Test
    void anEnumeratorHandlerThrowingARefusedLoginThrowsANonRecoverableFailure() {
        AtomicReference<BiConsumer<Object, Throwable>> registered = new AtomicReference<>();
        SplitEnumeratorContext<SourceSplit> context = new FailFastEnumeratorContext<>(capturing(registered));
        context.callAsync(() -> null, (result, error) -> {
            throw new FlinkRuntimeException("Failed to list subscribed topic partitions due to ", error);
        });
        Throwable thrown = catchThrowable(
                () -> registered.get().accept(null, new SaslAuthenticationException("invalid credentials")));
        assertThat(NonRecoverable.isNonRecoverable(thrown)).isTrue();
    }

    @SuppressWarnings("unchecked")
    private static SplitEnumeratorContext<SourceSplit> capturing(
            AtomicReference<BiConsumer<Object, Throwable>> handler) {
        return (SplitEnumeratorContext<SourceSplit>) java.lang.reflect.Proxy.newProxyInstance(
                KafkaAuthenticationTest.class.getClassLoader(),
                new Class<?>[] {SplitEnumeratorContext.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("callAsync")) {
                        handler.set((BiConsumer<Object, Throwable>) args[1]);
                        return null;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }
}
