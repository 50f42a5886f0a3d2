package io.kes.jobs;

import io.kes.jobs.config.ConfigException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How {@code bin/kes run} reports a job that ended with an error: a few lines on the console
 * (what failed, its root cause, whether restarts were tried), the stack trace only in the log
 * file. Flink wraps a task failure in three to six layers ("Job execution failed", "Recovery is
 * suppressed", the connector's own wrappers); the lines name the layer kes wrote, and the root.
 */
final class JobFailure {

    /** Logged to the file only (log4j2-cli.properties): the console gets {@link #summary}. */
    private static final Logger LOG = LoggerFactory.getLogger(JobFailure.class);

    private JobFailure() {}

    static void report(Throwable failure) {
        LOG.error("the job failed", failure);
        System.err.println(summary(failure, System.getProperty("kes.log.file")));
    }

    static String summary(Throwable failure, String logFile) {
        if (failure instanceof ConfigException) {
            return "[kes] " + failure.getMessage();
        }
        List<Throwable> chain = new ArrayList<>();
        for (Throwable t = failure; t != null && !chain.contains(t); t = t.getCause()) {
            chain.add(t);
        }
        Throwable root = chain.get(chain.size() - 1);
        int suppressed = -1;
        for (int i = 0; i < chain.size(); i++) {
            if (chain.get(i) instanceof SuppressRestartsException) {
                suppressed = i;
            }
        }
        Throwable headline = suppressed >= 0 && suppressed + 1 < chain.size() ? chain.get(suppressed + 1) : root;
        StringBuilder out = new StringBuilder("[kes] the job failed: ").append(describe(headline));
        if (headline != root) {
            out.append("\n[kes]   root cause: ").append(describe(root));
        }
        if (suppressed >= 0) {
            out.append("\n[kes]   not restarted: a restart cannot cure this error");
        } else {
            chain.stream()
                    .filter(t -> String.valueOf(t.getMessage()).startsWith("Recovery is suppressed by"))
                    .findFirst()
                    .ifPresent(t -> out.append("\n[kes]   ").append(t.getMessage()));
        }
        if (logFile != null) {
            out.append("\n[kes]   stack trace in ").append(logFile);
        }
        return out.toString();
    }

    private static String describe(Throwable t) {
        String type = t.getClass().getName();
        boolean plain = type.startsWith("java.lang.IllegalStateException")
                || type.startsWith("java.lang.IllegalArgumentException")
                || t
                        instanceof
                        io.kes.connector.NonRecoverable.SerializableCopy; // its message starts with the original class
        return t.getMessage() == null ? type : plain ? t.getMessage() : type + ": " + t.getMessage();
    }
}
