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
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * {@code bin/kes sql FILE.sql}: runs the statements of a SQL file, in order, in an embedded Flink
 * MiniCluster, the quick start for SQL users. {@code SET 'key' = 'value';} sets a Flink option for
 * the statements after it; an {@code INSERT} runs as a job whose state is printed every two
 * seconds until it ends (bounded sources) or the process is stopped. Checkpoints every 10 s by
 * default, so the kes sink's checkpoint fence is at work as in production; a failing job restarts
 * three times, then the file stops with its error ({@code SET} changes either).
 */
public final class SqlFile {

    private static final Pattern SET = Pattern.compile("(?is)SET\\s+'([^']+)'\\s*=\\s*'([^']*)'");

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
            System.err.println("[kes sql] failed: " + (cause.getMessage() != null ? cause.getMessage() : cause.toString()));
            System.err.println("[kes sql] the full stack trace is in the log");
            // INFO: into the log file only; the terminal has the line above (bin/kes shows warnings there).
            org.slf4j.LoggerFactory.getLogger(SqlFile.class).info("SQL file failed", e);
            System.exit(1);
        }
        System.exit(0);
    }

    /** Runs every statement of {@code sql}; returns when the last one has finished. */
    public static void run(String sql) throws Exception {
        Configuration conf = new Configuration();
        conf.setString("execution.checkpointing.interval", "10s");
        // A quick start should end with the error, not restart forever (the default with checkpoints):
        // three restarts show the fence's replay at work, then the job fails and says why.
        conf.setString("restart-strategy.type", "fixed-delay");
        conf.setString("restart-strategy.fixed-delay.attempts", "3");
        conf.setString("restart-strategy.fixed-delay.delay", "5s");
        StreamTableEnvironment tables = StreamTableEnvironment.create(StreamExecutionEnvironment.getExecutionEnvironment(conf));
        for (String statement : statements(sql)) {
            Matcher set = SET.matcher(statement);
            if (set.matches()) {
                tables.getConfig().getConfiguration().setString(set.group(1), set.group(2));
                System.out.println("[kes sql] " + set.group(1) + " = " + set.group(2));
                continue;
            }
            System.out.println("[kes sql] " + firstLine(statement));
            TableResult result = tables.executeSql(statement);
            JobClient job = result.getJobClient().orElse(null);
            if (job == null) {
                result.print();
            } else if (statement.trim().toUpperCase().startsWith("SELECT")) {
                result.print();
            } else {
                await(job);
            }
        }
    }

    private static void await(JobClient job) throws Exception {
        long start = System.nanoTime();
        CompletableFuture<JobExecutionResult> done = job.getJobExecutionResult();
        while (true) {
            try {
                done.get(2, TimeUnit.SECONDS); // throws the job's failure
                break;
            } catch (TimeoutException stillRunning) {
                // The local cluster shuts down with the job: a status asked for at that moment is not there.
                String status = job.getJobStatus().handle((s, e) -> e == null ? s.toString() : "ending").get();
                System.out.printf("[kes sql] job %s %s, %d s%n", job.getJobID(), status,
                        Duration.ofNanos(System.nanoTime() - start).toSeconds());
            }
        }
        System.out.printf("[kes sql] job %s finished in %.1f s%n", job.getJobID(), (System.nanoTime() - start) / 1e9);
    }

    /** Splits on semicolons outside quotes, identifiers in backticks and comments. */
    static List<String> statements(String sql) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        char quote = 0;
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (quote == 0 && c == '-' && i + 1 < sql.length() && sql.charAt(i + 1) == '-') {
                while (i < sql.length() && sql.charAt(i) != '\n') {
                    i++;
                }
                current.append('\n');
                continue;
            }
            if (quote == 0 && (c == '\'' || c == '`' || c == '"')) {
                quote = c;
            } else if (c == quote) {
                quote = 0;
            }
            if (quote == 0 && c == ';') {
                add(out, current);
            } else {
                current.append(c);
            }
        }
        add(out, current);
        return out;
    }

    private static void add(List<String> out, StringBuilder statement) {
        if (!statement.toString().isBlank()) {
            out.add(statement.toString().trim());
        }
        statement.setLength(0);
    }

    private static String firstLine(String statement) {
        String line = statement.lines().findFirst().orElse("");
        return statement.contains("\n") ? line + " ..." : line;
    }

    private static Throwable rootCause(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }
}
