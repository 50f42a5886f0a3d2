package io.kes.jobs.cli;

import io.kes.jobs.config.ConfigException;
import io.kes.jobs.preflight.CannotConnectException;
import io.kes.jobs.preflight.PreflightFailed;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The errors a user makes or meets on the first try (a config typo, a wrong host, a missing
 * topic, refused credentials) as one or a few {@code kes: ...} lines on the console, with the exit
 * code that says which kind. The stack trace goes to the log file only ({@code log4j2-cli.properties}
 * sends this class's logger there), or to the console too with {@code --debug}.
 */
public final class UserErrors {

    private static final Logger LOG = LoggerFactory.getLogger(UserErrors.class);

    private UserErrors() {}

    /** The exit code of {@code failure} when it is a user error; empty for a failure of the job itself. */
    public static Optional<ExitCode> kind(Throwable failure) {
        if (failure instanceof ConfigException || failure instanceof Flag.UsageException) {
            return Optional.of(ExitCode.CONFIG);
        }
        if (failure instanceof PreflightFailed || failure instanceof CannotConnectException) {
            return Optional.of(ExitCode.CANNOT_CONNECT);
        }
        return Optional.empty();
    }

    /** Prints a user error in a few lines and returns its exit code. */
    public static ExitCode report(Throwable failure, ExitCode kind, boolean debug) {
        LOG.error("kes stopped ({})", kind, failure);
        System.err.println(message(failure));
        if (debug) {
            failure.printStackTrace();
        } else if (failure instanceof CannotConnectException && System.getProperty("kes.log.file") != null) {
            System.err.println("kes: details in " + System.getProperty("kes.log.file") + " (or run with --debug)");
        }
        return kind;
    }

    static String message(Throwable failure) {
        if (failure instanceof ConfigException config && config.problems().size() > 1) {
            return "kes: the config has " + config.problems().size() + " errors:\n  "
                    + String.join("\n  ", config.problems());
        }
        if (failure instanceof PreflightFailed preflight) {
            int n = preflight.report().failures().size();
            return "kes: the check found " + (n == 1 ? "a problem" : n + " problems") + ":\n  "
                    + String.join("\n  ", preflight.report().failures());
        }
        return "kes: " + failure.getMessage();
    }

    /** A command's work: what it returns is the process's exit code. */
    public interface Command {
        ExitCode run() throws Exception;
    }

    /**
     * Runs {@code command} and ends the JVM with its exit code. A user error (config, connection,
     * credentials, topics) prints as a few {@code kes: ...} lines; anything else goes to
     * {@code unexpected}, then its stack trace to the console with {@code --debug}, and exits with
     * {@link ExitCode#JOB_FAILED}.
     */
    public static void exitWith(String[] args, Command command, Consumer<Exception> unexpected) {
        boolean debug = Arrays.asList(args).contains(Flag.DEBUG.name);
        ExitCode exit;
        try {
            exit = command.run();
        } catch (Exception e) {
            Optional<ExitCode> kind = kind(e);
            if (kind.isPresent()) {
                exit = report(e, kind.get(), debug);
            } else {
                unexpected.accept(e);
                if (debug) {
                    e.printStackTrace();
                }
                exit = ExitCode.JOB_FAILED;
            }
        }
        System.exit(exit.code);
    }
}
