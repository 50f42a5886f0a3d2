package io.kes.jobs.cli;

import io.kes.jobs.config.KesConfig;
import io.kes.jobs.preflight.Preflight;
import io.kes.jobs.preflight.PreflightReport;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code bin/kes check --config FILE}: every config error at once, then Elasticsearch, Kafka and
 * each route as the job would find them, in one table. Exits with {@link ExitCode}.
 */
public final class CheckCommand {

    private static final Logger LOG = LoggerFactory.getLogger(CheckCommand.class);
    static final String COMMAND = "bin/kes check";

    private CheckCommand() {}

    public static void main(String[] args) {
        UserErrors.exitWith(args, () -> check(args), e -> {
            LOG.error("the check failed", e);
            boolean debug = Arrays.asList(args).contains(Flag.DEBUG.name);
            System.err.println("kes: the check itself failed: " + e
                    + (debug ? "" : " (stack trace in the log file, or run with --debug)"));
        });
    }

    static ExitCode check(String[] args) {
        Map<Flag, String> flags = Flag.parse(args, Flag.CHECK, COMMAND);
        if (flags.containsKey(Flag.HELP)) {
            System.out.print(Flag.help(
                    COMMAND,
                    "Checks a job's config, then Elasticsearch, Kafka and every route, without starting the job.",
                    Flag.CHECK));
            return ExitCode.OK;
        }
        String file = flags.get(Flag.CONFIG);
        if (file == null) {
            throw new Flag.UsageException("--config FILE is required: " + COMMAND + " --config mapping.yaml");
        }
        KesConfig config = KesConfig.load(Path.of(file));
        System.out.println("kes check: " + file);
        PreflightReport report = Preflight.run(config, false);
        System.out.print(report.table());
        if (report.failed()) {
            Preflight.requireOk(report); // throws, printed by UserErrors
        }
        System.out.println("kes: all checks passed; start the job with: bin/kes run --config " + file);
        return ExitCode.OK;
    }
}
