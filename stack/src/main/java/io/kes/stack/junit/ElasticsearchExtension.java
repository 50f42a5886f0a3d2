package io.kes.stack.junit;

import io.kes.stack.ElasticsearchNode;
import io.kes.stack.SharedServers;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * Gives a test the shared real Elasticsearch node (started once per test JVM) as an
 * {@link ElasticsearchNode} parameter, and prints the node's log tail when a test fails.
 */
public class ElasticsearchExtension implements BeforeAllCallback, ParameterResolver, TestExecutionExceptionHandler {

    @Override
    public void beforeAll(ExtensionContext context) {
        SharedServers.elasticsearch();
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == ElasticsearchNode.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return SharedServers.elasticsearch();
    }

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        System.err.println("[kes] " + context.getDisplayName() + " failed; Elasticsearch log tail:\n"
                + SharedServers.elasticsearch().logTail(40));
        throw failure;
    }
}
