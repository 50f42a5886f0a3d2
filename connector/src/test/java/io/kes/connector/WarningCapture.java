package io.kes.connector;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/** The WARN and ERROR lines of one logger (and those below it) while installed (test support). */
final class WarningCapture extends AbstractAppender implements AutoCloseable {

    private final StringBuffer text = new StringBuffer();
    private final String logger;

    private WarningCapture(String logger) {
        super("kes-warning-capture", null, null, true, Property.EMPTY_ARRAY);
        this.logger = logger;
        start();
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        LoggerConfig config = new LoggerConfig(logger, Level.WARN, true);
        config.addAppender(this, Level.WARN, null);
        context.getConfiguration().addLogger(logger, config);
        context.updateLoggers();
    }

    static WarningCapture install(String logger) {
        return new WarningCapture(logger);
    }

    @Override
    public void append(LogEvent event) {
        text.append(event.getLevel())
                .append(' ')
                .append(event.getMessage().getFormattedMessage())
                .append('\n');
    }

    String text() {
        return text.toString();
    }

    @Override
    public void close() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        context.getConfiguration().removeLogger(logger);
        context.updateLoggers();
        stop();
    }
}
