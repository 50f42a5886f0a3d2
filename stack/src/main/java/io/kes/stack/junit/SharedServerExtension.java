package io.kes.stack.junit;

import io.kes.stack.LocalServer;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * Gives a test a shared real server (started once per test JVM, see {@code SharedServers}) as a
 * parameter of its type, and prints the server's log tail when a test fails.
 */
public abstract class SharedServerExtension<S extends LocalServer>
        implements BeforeAllCallback, ParameterResolver, TestExecutionExceptionHandler {

    private final Class<S> type;
    private final Supplier<S> shared;

    protected SharedServerExtension(Class<S> type, Supplier<S> shared) {
        this.type = type;
        this.shared = shared;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        shared.get();
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == type;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return shared.get();
    }

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        S server = shared.get();
        System.err.println("[kes] " + context.getDisplayName() + " failed; " + server.displayName() + " log tail:\n"
                + server.logTail(40));
        throw failure;
    }
}
