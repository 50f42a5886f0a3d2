package io.kes.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import org.junit.jupiter.api.Test;

/**
 * {@code bin/kes sql} runs a file as Flink's SQL client would: views, SET, statement sets as one
 * job; a failing statement stops the file with its line and the planner's message. (Datagen into
 * blackhole tables, in a MiniCluster: no servers.)
 */
class SqlFileTest {

    private static final String SOURCE = """
            SET 'parallelism.default' = '1';
            CREATE TABLE src (x BIGINT, s STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '20', 'fields.x.kind' = 'sequence',
                'fields.x.start' = '1', 'fields.x.end' = '20');
            """;

    @Test
    void anExecuteStatementSetRunsAsOneJobFeedingBothTables() throws Exception {
        String out = Stdout.of(() -> SqlFile.run(SOURCE + """
                /* a view, as the SQL client runs it; 'a;quote' in a comment */
                CREATE VIEW doubled AS SELECT x * 2 AS y, 'semi;colon' AS note FROM src;
                CREATE TABLE a (y BIGINT, note STRING) WITH ('connector' = 'blackhole');
                CREATE TABLE b (y BIGINT, note STRING) WITH ('connector' = 'blackhole');
                EXECUTE STATEMENT SET BEGIN
                  INSERT INTO a SELECT y, note FROM doubled;
                  INSERT INTO b SELECT CASE WHEN y > 10 THEN y ELSE 0 END, note FROM doubled;
                END;
                """));
        assertThat(out).contains("[kes sql] parallelism.default = 1", "[kes sql] EXECUTE STATEMENT SET BEGIN ...");
        assertThat(Stdout.finishedJobs(out)).as("one job for both INSERTs").isEqualTo(1);
    }

    @Test
    void theSqlClientsBeginStatementSetRunsItsInsertsAsOneJob() throws Exception {
        String out = Stdout.of(() -> SqlFile.run(SOURCE + """
                CREATE TABLE a (x BIGINT) WITH ('connector' = 'blackhole');
                CREATE TABLE b (x BIGINT) WITH ('connector' = 'blackhole');
                BEGIN STATEMENT SET;
                INSERT INTO a SELECT x FROM src;
                INSERT INTO b SELECT x FROM src;
                END;
                """));
        assertThat(Stdout.finishedJobs(out)).as("one job for both INSERTs").isEqualTo(1);
    }

    @Test
    void aFailingStatementIsReportedWithItsLineAndThePlannersMessage() {
        Throwable failure = catchThrowable(() -> SqlFile.run(SOURCE + """
                CREATE TABLE es (x BIGINT) WITH ('connector' = 'kes', 'hosts' = 'http://localhost:9200', 'index' = 'x',
                  'sink.bulk-flush.backoff.strategy' = 'CONSTANT');
                -- line 6 is the INSERT
                INSERT INTO es SELECT x FROM src;
                """));
        assertThat(failure)
                .isInstanceOf(SqlFile.StatementFailed.class)
                .hasMessage("line 7: INSERT INTO es SELECT x FROM src\n"
                        + "kes retries rejected and unavailable writes with exponential backoff (retry.initial-backoff, doubling up to "
                        + "retry.max-backoff) for up to retry.max-time; 'sink.bulk-flush.backoff.strategy' = 'CONSTANT' has no kes "
                        + "equivalent, remove it");
        assertThat(((SqlFile.StatementFailed) failure).line()).isEqualTo(7);
    }

    @Test
    void parserAndValidatorPositionsAreCountedInTheFile() {
        assertThat(catchThrowable(() -> SqlFile.run(SOURCE + "\n  SELECT x\n  FORM src;\n")))
                .hasMessage("line 5: SELECT x ...\nEncountered \"src\" at line 6, column 8.");
        assertThat(catchThrowable(
                        () -> SqlFile.run(SOURCE + "CREATE TABLE a (x BIGINT) WITH ('connector' = 'blackhole');\n"
                                + "INSERT INTO a\n  SELECT nope FROM src;\n")))
                .hasMessage("line 5: INSERT INTO a ...\n"
                        + "From line 6, column 10 to line 6, column 13: Column 'nope' not found in any table");
        assertThat(catchThrowable(() -> SqlFile.run(SOURCE + "INSERT INTO nowhere SELECT x FROM src;\n")))
                .hasMessage("line 4: INSERT INTO nowhere SELECT x FROM src\n"
                        + "Cannot find table '`default_catalog`.`default_database`.`nowhere`' in any of the catalogs [default_catalog], "
                        + "nor as a temporary table.");
    }
}
