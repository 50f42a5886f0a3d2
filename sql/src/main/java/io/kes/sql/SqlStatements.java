package io.kes.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Splits a SQL file into its statements, as Flink's SQL client does: on {@code ;} outside string
 * literals ({@code '...'}, {@code ''} inside), quoted identifiers ({@code `...`}, {@code "..."}),
 * {@code --} and {@code /* *}{@code /} comments, and outside the body of
 * {@code EXECUTE STATEMENT SET BEGIN ... END} (whose {@code INSERT}s end with {@code ;} too; a
 * {@code CASE ... END} inside them does not end the set).
 *
 * <p>Why by hand: the SQL client splits with the Flink SQL parser's token manager
 * ({@code SqlCommandParserImpl}, flink-sql-client on flink-sql-parser and Calcite), which is not
 * on kes's classpath: the planner, Calcite included, sits behind {@code flink-table-planner-loader}'s
 * own class loader. The planner's {@code Parser} (what {@code executeSql} uses, and what runs every
 * statement here) takes one statement at a time and resolves it against the catalog, so it cannot
 * split a file whose later statements name tables the earlier ones create. The rules above are the
 * lexical ones of Flink SQL; everything else is left to the planner, statement by statement.
 */
final class SqlStatements {

    private SqlStatements() {}

    /**
     * One statement: {@code text} as written (comments kept, so that hints such as
     * {@code /*+ OPTIONS(...) *}{@code /} reach the planner), {@code code} the same without
     * comments, {@code line} the 1-based line of its first character, {@code column} that
     * character's column.
     */
    record Statement(String text, String code, int line, int column) {
        /** The first line of the statement without comments, with "..." when there is more. */
        String firstLine() {
            String first = code.lines()
                    .map(String::strip)
                    .filter(l -> !l.isEmpty())
                    .findFirst()
                    .orElse("");
            return code.strip().contains("\n") ? first + " ..." : first;
        }

        /** The statement's words without comments, upper case, blank-separated: for matching what it is. */
        String words() {
            return code.strip().replaceAll("\\s+", " ").toUpperCase(Locale.ROOT);
        }
    }

    static List<Statement> split(String sql) {
        List<Statement> out = new ArrayList<>();
        Builder current = new Builder();
        int line = 1;
        int column = 1;
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            char next = i + 1 < sql.length() ? sql.charAt(i + 1) : 0;
            if (current.quote == 0 && !current.inComment()) {
                if (!Character.isLetterOrDigit(c) && c != '_') {
                    current.endWord(); // before ';': an END right before it closes a statement set
                }
                if (c == '-' && next == '-') {
                    current.lineComment = true;
                } else if (c == '/' && next == '*') {
                    current.blockComment = true;
                    current.text.append(c);
                    current.text.append(next);
                    current.code.append(' ');
                    i++;
                    column += 2;
                    continue;
                } else if (c == '\'' || c == '`' || c == '"') {
                    current.quote = c;
                    current.word(line, column);
                } else if (c == ';' && !current.inStatementSet()) {
                    current.addTo(out);
                    current = new Builder();
                    column++;
                    continue;
                } else if (Character.isLetterOrDigit(c) || c == '_') {
                    current.letter(c, line, column);
                } else {
                    if (!Character.isWhitespace(c)) {
                        current.start(line, column);
                    }
                }
            } else if (current.lineComment && c == '\n') {
                current.lineComment = false;
            } else if (current.blockComment && c == '*' && next == '/') {
                current.blockComment = false;
                current.text.append(c).append(next);
                i++;
                column += 2;
                continue;
            } else if (current.quote != 0 && c == current.quote) {
                current.quote = 0; // a doubled quote ('', ``) closes and opens again: the same literal
            }
            current.text.append(c);
            if (!current.inComment() || c == '\n') {
                current.code.append(c);
            }
            if (c == '\n') {
                line++;
                column = 1;
            } else {
                column++;
            }
        }
        current.endWord();
        current.addTo(out);
        return out;
    }

    /** The statement being read, and where the scan is in it. */
    private static final class Builder {
        final StringBuilder text = new StringBuilder();
        final StringBuilder code = new StringBuilder();
        final StringBuilder word = new StringBuilder();
        char quote;
        boolean lineComment;
        boolean blockComment;
        int line = -1;
        int column = -1;
        /** Where the statement's first character is in {@link #text}: comments before it are not part of it. */
        int textStart;
        /** The statement's first words, upper case, while they may still say EXECUTE STATEMENT SET BEGIN. */
        final List<String> leading = new ArrayList<>();

        boolean statementSet;
        boolean setEnded;
        int caseDepth;

        boolean inComment() {
            return lineComment || blockComment;
        }

        boolean inStatementSet() {
            return statementSet && !setEnded;
        }

        void start(int atLine, int atColumn) {
            if (line < 0) {
                line = atLine;
                column = atColumn;
                textStart = text.length();
            }
            if (word.isEmpty() && leading.size() < 4) {
                leading.add("");
            }
        }

        void word(int atLine, int atColumn) {
            endWord();
            start(atLine, atColumn);
        }

        void letter(char c, int atLine, int atColumn) {
            if (line < 0) {
                line = atLine;
                column = atColumn;
                textStart = text.length();
            }
            word.append(c);
        }

        void endWord() {
            if (word.isEmpty()) {
                return;
            }
            String w = word.toString().toUpperCase(Locale.ROOT);
            word.setLength(0);
            if (leading.size() < 4) {
                leading.add(w);
                statementSet = leading.equals(List.of("EXECUTE", "STATEMENT", "SET", "BEGIN"));
                return;
            }
            if (statementSet && !setEnded) {
                if (w.equals("CASE")) {
                    caseDepth++;
                } else if (w.equals("END")) {
                    if (caseDepth > 0) {
                        caseDepth--;
                    } else {
                        setEnded = true;
                    }
                }
            }
        }

        void addTo(List<Statement> out) {
            if (line > 0 && !code.toString().isBlank()) {
                out.add(new Statement(
                        text.substring(textStart).strip(), code.toString().strip(), line, column));
            }
        }
    }
}
