package io.kes.jobs;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;

/**
 * Everything logged in this JVM at INFO and above (every logger, Flink's and the HTTP client's
 * included), with stack traces, while it is installed: what a user's log file would hold.
 */
final class LogCapture extends AbstractAppender implements AutoCloseable {

    private final StringBuffer text = new StringBuffer();
    private final Level previousRoot;

    private LogCapture() {
        super("kes-log-capture", null, null, true, Property.EMPTY_ARRAY);
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        previousRoot = context.getConfiguration().getRootLogger().getLevel();
        start();
        context.getConfiguration().getRootLogger().addAppender(this, Level.INFO, null);
        context.getConfiguration().getRootLogger().setLevel(Level.INFO);
        context.getConfiguration().getLoggers().values().forEach(l -> {
            if (l != context.getConfiguration().getRootLogger()) {
                l.addAppender(this, Level.INFO, null);
            }
        });
        context.updateLoggers();
    }

    static LogCapture install() {
        return new LogCapture();
    }

    @Override
    public void append(LogEvent event) {
        text.append(event.getLevel())
                .append(' ')
                .append(event.getLoggerName())
                .append(": ")
                .append(event.getMessage().getFormattedMessage())
                .append('\n');
        if (event.getThrown() != null) {
            StringWriter trace = new StringWriter();
            event.getThrown().printStackTrace(new PrintWriter(trace));
            text.append(trace).append('\n');
        }
    }

    String text() {
        return text.toString();
    }

    @Override
    public void close() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        context.getConfiguration().getLoggers().values().forEach(l -> l.removeAppender(getName()));
        context.getConfiguration().getRootLogger().removeAppender(getName());
        context.getConfiguration().getRootLogger().setLevel(previousRoot);
        context.updateLoggers();
        stop();
    }
}
