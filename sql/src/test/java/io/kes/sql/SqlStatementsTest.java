package io.kes.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.sql.SqlStatements.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code bin/kes sql} splits a file where Flink's SQL client does, and knows where each statement starts. */
class SqlStatementsTest {

    private static List<String> texts(String sql) {
        return SqlStatements.split(sql).stream().map(Statement::text).toList();
    }

    @Test
    void semicolonsEndStatementsAndBlankOnesAreDropped() {
        assertThat(texts("CREATE TABLE a (x INT);\n\n;  INSERT INTO a VALUES (1);\n"))
                .containsExactly("CREATE TABLE a (x INT)", "INSERT INTO a VALUES (1)");
    }

    @Test
    void aSemicolonInAStringLiteralOrQuotedIdentifierDoesNotEndTheStatement() {
        assertThat(texts("INSERT INTO a SELECT 'x;y', 'it''s;', `we;ird`, \"q;\" FROM b; SELECT 1"))
                .containsExactly("INSERT INTO a SELECT 'x;y', 'it''s;', `we;ird`, \"q;\" FROM b", "SELECT 1");
    }

    @Test
    void commentsMayHoldSemicolonsAndQuotesAndOnlyCommentsIsNoStatement() {
        List<Statement> statements = SqlStatements.split("""
                -- the source; it's a 'table'
                CREATE TABLE a (x INT) /* block; with ' a quote */ WITH ('connector' = 'datagen');
                /* only a comment; */
                -- and another
                """);
        assertThat(statements).hasSize(1);
        assertThat(statements.get(0).text())
                .isEqualTo("CREATE TABLE a (x INT) /* block; with ' a quote */ WITH ('connector' = 'datagen')");
        assertThat(statements.get(0).code()).isEqualTo("CREATE TABLE a (x INT)   WITH ('connector' = 'datagen')");
        assertThat(statements.get(0).line()).isEqualTo(2);
    }

    @Test
    void hintsStayInTheStatementForThePlanner() {
        assertThat(texts("SELECT * FROM t /*+ OPTIONS('scan.startup.mode' = 'earliest-offset') */; SELECT 2"))
                .containsExactly("SELECT * FROM t /*+ OPTIONS('scan.startup.mode' = 'earliest-offset') */", "SELECT 2");
    }

    @Test
    void anExecuteStatementSetIsOneStatementUpToItsEndEvenWithCaseEndInside() {
        List<Statement> statements = SqlStatements.split("""
                SET 'parallelism.default' = '1';
                execute statement set
                begin
                  INSERT INTO a SELECT CASE WHEN x > 1 THEN 'big' ELSE 'small' END FROM s;
                  -- a comment; in the set
                  INSERT INTO b SELECT x FROM s;
                END;
                SELECT 1;
                """);
        assertThat(statements).extracting(Statement::line).containsExactly(1, 2, 8);
        assertThat(statements.get(1).text())
                .startsWith("execute statement set\nbegin")
                .endsWith("INSERT INTO b SELECT x FROM s;\nEND");
        assertThat(statements.get(1).words())
                .isEqualTo(
                        "EXECUTE STATEMENT SET BEGIN INSERT INTO A SELECT CASE WHEN X > 1 THEN 'BIG' ELSE 'SMALL' END FROM S; "
                                + "INSERT INTO B SELECT X FROM S; END");
    }

    @Test
    void theSqlClientsBeginStatementSetFormIsSplitIntoItsStatements() {
        assertThat(texts("BEGIN STATEMENT SET;\nINSERT INTO a SELECT 1;\nINSERT INTO b SELECT 2;\nEND;"))
                .containsExactly("BEGIN STATEMENT SET", "INSERT INTO a SELECT 1", "INSERT INTO b SELECT 2", "END");
    }

    @Test
    void aStatementStartsAtItsFirstCharacterAfterCommentsAndBlankLines() {
        List<Statement> statements = SqlStatements.split("SELECT 1;\n\n  /* c */ -- d\n\n    SELECT\n  2;");
        assertThat(statements).extracting(Statement::line).containsExactly(1, 5);
        assertThat(statements.get(1).column()).isEqualTo(5);
        assertThat(statements.get(1).text()).isEqualTo("SELECT\n  2");
        assertThat(statements.get(1).firstLine()).isEqualTo("SELECT ...");
    }

    @Test
    void theLastStatementNeedsNoSemicolon() {
        assertThat(texts("SELECT 1;\nSELECT 2 -- no semicolon"))
                .containsExactly("SELECT 1", "SELECT 2 -- no semicolon");
    }
}
