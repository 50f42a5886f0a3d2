package io.kes.sql;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * {@code bin/kes sql FILE.sql}: runs the statements of a SQL file, in order, in an embedded Flink
 * MiniCluster, the quick start for SQL users. It runs what Flink's SQL client runs from a file:
 * statements split as the client splits them ({@link SqlStatements}: comments, {@code ;} in string
 * literals, {@code EXECUTE STATEMENT SET BEGIN ... END;}), each handed to the planner as it comes;
 * {@code SET 'key' = 'value';} and {@code RESET 'key';} set a Flink option for the statements after
 * it; {@code BEGIN STATEMENT SET; ... END;} runs its INSERTs as one job. A failing statement stops
 * the file with its line and the planner's message. An {@code INSERT} runs as a job whose state is printed every two
 * seconds until it ends (bounded sources) or the process is stopped. Checkpoints every 10 s by
 * default, so the kes sink's checkpoint fence is at work as in production; a failing job restarts
 * three times, then the file stops with its error ({@code SET} changes either).
 */
public final class SqlFile {

    private static final Pattern SET = Pattern.compile("(?is)SET\\s+'([^']+)'\\s*=\\s*'([^']*)'");
    private static final Pattern RESET = Pattern.compile("(?is)RESET\\s+'([^']+)'");

    private SqlFile() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: bin/kes sql FILE.sql");
            System.exit(2);
        }
        try {
            run(Files.readString(Path.of(args[0])));
        } catch (Exception e) {
            Throwable cause = rootCause(e);
            System.err.println("[kes sql] failed "
                    + (e instanceof StatementFailed
                            ? "at " + e.getMessage()
                            : ": " + (cause.getMessage() != null ? cause.getMessage() : cause.toString())));
            System.err.println("[kes sql] the full stack trace is in the log");
            // INFO: into the log file only; the terminal has the line above (bin/kes shows warnings there).
            org.slf4j.LoggerFactory.getLogger(SqlFile.class).info("SQL file failed", e);
            System.exit(1);
        }
        System.exit(0);
    }

    /**
     * Runs every statement of {@code sql}; returns when the last one has finished. A statement that
     * fails throws {@link StatementFailed}, naming its line and the planner's (or the job's) message.
     */
    public static void run(String sql) throws Exception {
        Configuration conf = new Configuration();
        conf.setString("execution.checkpointing.interval", "10s");
        // A quick start should end with the error, not restart forever (the default with checkpoints):
        // three restarts show the fence's replay at work, then the job fails and says why.
        conf.setString("restart-strategy.type", "fixed-delay");
        conf.setString("restart-strategy.fixed-delay.attempts", "3");
        conf.setString("restart-strategy.fixed-delay.delay", "5s");
        StreamTableEnvironment tables =
                StreamTableEnvironment.create(StreamExecutionEnvironment.getExecutionEnvironment(conf));
        // BEGIN STATEMENT SET; ... END; (the SQL client's own form): the INSERTs in between, run as one job at END.
        List<SqlStatements.Statement> statementSet = null;
        for (SqlStatements.Statement statement : SqlStatements.split(sql)) {
            try {
                String words = statement.words();
                if (words.equals("BEGIN STATEMENT SET")) {
                    statementSet = new ArrayList<>();
                    System.out.println("[kes sql] " + statement.firstLine());
                } else if (statementSet != null && words.equals("END")) {
                    StatementSet set = tables.createStatementSet();
                    statementSet.forEach(insert -> set.addInsertSql(insert.text()));
                    statementSet = null;
                    System.out.println("[kes sql] END: the statement set as one job");
                    JobClient job = set.execute().getJobClient().orElse(null);
                    if (job != null) {
                        await(job);
                    }
                } else if (statementSet != null) {
                    statementSet.add(statement);
                } else {
                    execute(tables, statement);
                }
            } catch (Exception e) {
                throw new StatementFailed(statement, e);
            }
        }
        if (statementSet != null) {
            throw new IllegalArgumentException("BEGIN STATEMENT SET has no END: end the set with END;");
        }
    }

    private static void execute(StreamTableEnvironment tables, SqlStatements.Statement statement) throws Exception {
        Matcher set = SET.matcher(statement.code());
        if (set.matches()) {
            tables.getConfig().getConfiguration().setString(set.group(1), set.group(2));
            System.out.println("[kes sql] " + set.group(1) + " = " + set.group(2));
            return;
        }
        Matcher reset = RESET.matcher(statement.code());
        if (reset.matches()) {
            tables.getConfig().getConfiguration().removeKey(reset.group(1));
            System.out.println("[kes sql] " + reset.group(1) + " reset");
            return;
        }
        System.out.println("[kes sql] " + statement.firstLine());
        TableResult result = tables.executeSql(statement.text());
        JobClient job = result.getJobClient().orElse(null);
        if (job == null || statement.words().startsWith("SELECT")) {
            result.print();
        } else {
            await(job);
        }
    }

    /** A statement of the file failed: its line, and the planner's or the job's message, without the stack trace. */
    public static final class StatementFailed extends Exception {
        private static final long serialVersionUID = 1L;
        private final int line;

        StatementFailed(SqlStatements.Statement statement, Throwable cause) {
            super("line " + statement.line() + ": " + statement.firstLine() + "\n" + message(statement, cause), cause);
            this.line = statement.line();
        }

        /** The 1-based line of the file where the failing statement starts. */
        public int line() {
            return line;
        }
    }

    private static final Pattern POSITION = Pattern.compile("line (\\d+), column (\\d+)");

    /**
     * The innermost message (the planner wraps the one that names the problem), without the
     * parser's list of expected tokens, and with the parser's positions counted in the file, not in
     * the statement.
     */
    static String message(SqlStatements.Statement statement, Throwable failure) {
        List<Throwable> chain = new ArrayList<>();
        for (Throwable t = failure; t != null && !chain.contains(t); t = t.getCause()) {
            chain.add(t);
        }
        Throwable cause = chain.get(chain.size() - 1);
        String message = cause.getMessage() != null ? cause.getMessage() : cause.toString();
        // Calcite's innermost "Object 'x' not found" has no position; the deepest exception around it that says where
        // wins.
        for (int i = chain.size() - 2; i >= 0 && !POSITION.matcher(message).find(); i--) {
            String around = chain.get(i).getMessage();
            if (around != null
                    && around.contains(message)
                    && POSITION.matcher(around).find()) {
                message = around;
            }
        }
        int expecting = message.indexOf("\nWas expecting");
        if (expecting > 0) {
            message = message.substring(0, expecting);
        }
        return POSITION.matcher(message.strip()).replaceAll(m -> {
            int line = Integer.parseInt(m.group(1));
            int column = Integer.parseInt(m.group(2));
            return "line " + (statement.line() + line - 1) + ", column "
                    + (line == 1 ? statement.column() + column - 1 : column);
        });
    }

    private static void await(JobClient job) throws Exception {
        long start = System.nanoTime();
        CompletableFuture<JobExecutionResult> done = job.getJobExecutionResult();
        while (true) {
            try {
                done.get(2, TimeUnit.SECONDS); // throws the job's failure
                break;
            } catch (TimeoutException stillRunning) {
                // The local cluster shuts down with the job: a status asked for at that moment is not
                // there, as a failed future or (once the cluster is down) thrown at once.
                String status;
                try {
                    status = job.getJobStatus()
                            .handle((s, e) -> e == null ? s.toString() : "ending")
                            .get();
                } catch (IllegalStateException clusterDown) {
                    status = "ending";
                }
                System.out.printf(
                        "[kes sql] job %s %s, %d s%n",
                        job.getJobID(),
                        status,
                        Duration.ofNanos(System.nanoTime() - start).toSeconds());
            }
        }
        System.out.printf("[kes sql] job %s finished in %.1f s%n", job.getJobID(), (System.nanoTime() - start) / 1e9);
    }

    private static Throwable rootCause(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }
}
