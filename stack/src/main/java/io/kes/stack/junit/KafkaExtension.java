package io.kes.stack.junit;

import io.kes.stack.KafkaBroker;
import io.kes.stack.SharedServers;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * Gives a test the shared real Kafka broker (KRaft, started once per test JVM) as a
 * {@link KafkaBroker} parameter; tests create their own topics. Prints the broker's log tail when
 * a test fails.
 */
public class KafkaExtension implements BeforeAllCallback, ParameterResolver, TestExecutionExceptionHandler {

    @Override
    public void beforeAll(ExtensionContext context) {
        SharedServers.kafka();
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == KafkaBroker.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return SharedServers.kafka();
    }

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        System.err.println("[kes] " + context.getDisplayName() + " failed; Kafka log tail:\n"
                + SharedServers.kafka().logTail(40));
        throw failure;
    }
}
