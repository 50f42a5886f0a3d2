package io.kes.connector.testing;

import io.kes.connector.internal.OptionText;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.ConfigOption;

/**
 * Tables of a reference doc generated from option declarations, every cell of them, so that the
 * docs cannot drift from them: key, type, default, and the meaning, which is the option's
 * description as written (Markdown). A table sits between {@code <!-- options:NAME ... -->} and
 * {@code <!-- /options:NAME -->}; its header is kept, its rows are the declared options in order.
 * To change what a row says, change the option's description.
 *
 * <p>{@link #verify()} fails with each row it expected and the row it found; with
 * {@code -Dkes.docs.update=true} it writes the expected rows into the file instead.
 */
public final class ReferenceTables {

    /** The command that rewrites the generated cells of every reference table. */
    public static final String REWRITE =
            "./mvnw -B -o -pl connector test -Dtest='*OptionsReferenceTest' -Dkes.docs.update=true";

    private static final Pattern FIRST_KEY = Pattern.compile("`([^`]+)`");

    /** One generated row: the key it is found by, and its cells. */
    public record Row(String key, String keyCell, String type, String defaultValue, String meaning) {

        /** The option's row: its keys, the given type and default, and its description. */
        public static Row of(ConfigOption<?> option, String type, String defaultValue) {
            return new Row(option.key(), OptionCells.keys(option), type, defaultValue, OptionText.asWritten(option));
        }

        String render() {
            return "| " + keyCell + " | " + type + " | " + defaultValue + " | " + meaning.replace("|", "\\|") + " |";
        }
    }

    private final Path document;
    private final String original;
    private String text;
    private final List<String> differences = new ArrayList<>();

    public ReferenceTables(Path document) throws IOException {
        this.document = document.toAbsolutePath().normalize();
        this.original = Files.readString(document);
        this.text = original;
    }

    /** Regenerates table {@code name}'s rows; differences from the file are kept for {@link #verify()}. */
    public ReferenceTables generate(String name, List<Row> rows) {
        String[] lines = text.split("\n", -1);
        int start = -1;
        int end = -1;
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].startsWith("<!-- options:" + name + " ") && lines[i].endsWith("-->")) {
                start = i;
            } else if (lines[i].equals("<!-- /options:" + name + " -->")) {
                end = i;
            }
        }
        if (start < 0 || end < start) {
            differences.add(document + " has no table '" + name + "': put one between '<!-- options:" + name
                    + " (what generates it) -->' and '<!-- /options:" + name
                    + " -->', with a header row, where its options belong");
            return this;
        }
        List<String> table = new ArrayList<>();
        for (int i = start + 1; i < end; i++) {
            if (lines[i].startsWith("|")) {
                table.add(lines[i]);
            } else if (!lines[i].isBlank()) {
                differences.add(document + ", table '" + name + "': only the table goes between its markers, found: "
                        + lines[i]);
                return this;
            }
        }
        if (table.size() < 2) {
            differences.add(document + ", table '" + name
                    + "': no header row (| key | type | default | meaning |, then |---|...)");
            return this;
        }
        List<String> found = table.subList(2, table.size());
        Map<String, String> foundByKey = new LinkedHashMap<>();
        found.forEach(row -> foundByKey.put(firstKey(row), row));

        List<String> expected = rows.stream().map(Row::render).toList();
        compare(name, rows, expected, found, foundByKey);

        List<String> rewritten = new ArrayList<>(List.of(lines).subList(0, start + 1));
        rewritten.add("");
        rewritten.addAll(table.subList(0, 2));
        rewritten.addAll(expected);
        rewritten.add("");
        rewritten.addAll(List.of(lines).subList(end, lines.length));
        text = String.join("\n", rewritten);
        return this;
    }

    /** Writes the regenerated tables with {@code -Dkes.docs.update=true}; else fails naming every row that differs. */
    public void verify() throws IOException {
        if (Boolean.getBoolean("kes.docs.update")) {
            if (!text.equals(original)) {
                Files.writeString(document, text);
                System.out.println("Rewrote the generated tables of " + document + "; review the diff.");
            }
            return;
        }
        if (!differences.isEmpty()) {
            throw new AssertionError(
                    "The option tables of " + document + " must be what the options declare (a row's meaning is "
                            + "its option's description: to change it, change the description):\n"
                            + String.join("\n", differences)
                            + "\nRewrite them with: " + REWRITE + " (then review the diff).");
        }
    }

    private void compare(
            String name, List<Row> rows, List<String> expected, List<String> found, Map<String, String> foundByKey) {
        String where = document + ", table '" + name + "'";
        List<String> expectedKeys = rows.stream().map(Row::key).toList();
        boolean rowDiffers = false;
        for (int i = 0; i < rows.size(); i++) {
            String existing = foundByKey.get(rows.get(i).key());
            if (!expected.get(i).equals(existing)) {
                rowDiffers = true;
                differences.add(where + ":\n  expected: " + expected.get(i) + "\n  found:    "
                        + (existing == null ? "no row for " + rows.get(i).key() : existing));
            }
        }
        for (String row : found) {
            if (!expectedKeys.contains(firstKey(row))) {
                rowDiffers = true;
                differences.add(where
                        + ": a row for no declared option (remove it, or declare the option):\n  found:    " + row);
            }
        }
        if (!rowDiffers && !expected.equals(found)) {
            differences.add(where + ": the rows are not in the order the options are declared in: "
                    + String.join(", ", expectedKeys));
        }
    }

    private static String firstKey(String row) {
        Matcher key = FIRST_KEY.matcher(row);
        return key.find() ? key.group(1) : row;
    }
}
