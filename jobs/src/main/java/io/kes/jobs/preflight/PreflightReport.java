package io.kes.jobs.preflight;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What {@code bin/kes check} found: one row per thing checked (a host, a topic, a route's target),
 * each ok, a warning, or a failure that names the setting to fix. Rendered as one table.
 */
public final class PreflightReport {

    /** How a row came out. */
    public enum Status {
        OK("ok"),
        WARN("warn"),
        FAIL("FAIL");

        final String label;

        Status(String label) {
            this.label = label;
        }
    }

    /** One thing checked; {@code detail} says what was found, or for a failure what is wrong and which setting fixes it. */
    public record Row(String subject, Status status, String detail) {}

    private final List<Row> rows = new ArrayList<>();

    void ok(String subject, String detail) {
        rows.add(new Row(subject, Status.OK, detail));
    }

    void warn(String subject, String detail) {
        rows.add(new Row(subject, Status.WARN, detail));
    }

    void fail(String subject, String detail) {
        rows.add(new Row(subject, Status.FAIL, detail));
    }

    public List<Row> rows() {
        return List.copyOf(rows);
    }

    public boolean failed() {
        return rows.stream().anyMatch(r -> r.status() == Status.FAIL);
    }

    /** The failures, each "subject: detail", in the order found. */
    public List<String> failures() {
        return rows.stream()
                .filter(r -> r.status() == Status.FAIL)
                .map(r -> r.subject() + ": " + r.detail())
                .toList();
    }

    public Optional<Row> firstFailure() {
        return rows.stream().filter(r -> r.status() == Status.FAIL).findFirst();
    }

    /** The whole table: subject, status, detail; long details wrap under the detail column. */
    public String table() {
        return table(rows);
    }

    /** Only the warnings and failures (the brief check at the start of {@code bin/kes run}). */
    public String problemsTable() {
        return table(rows.stream().filter(r -> r.status() != Status.OK).toList());
    }

    private static String table(List<Row> rows) {
        int width = Math.max(
                "check".length(),
                rows.stream().mapToInt(r -> r.subject().length()).max().orElse(0));
        StringBuilder out = new StringBuilder();
        out.append(String.format("  %-" + width + "s  %-6s %s%n", "check", "status", "found"));
        for (Row r : rows) {
            List<String> lines = wrap(r.detail(), Math.max(40, 110 - width));
            out.append(String.format("  %-" + width + "s  %-6s %s%n", r.subject(), r.status().label, lines.get(0)));
            for (String line : lines.subList(1, lines.size())) {
                out.append(String.format("  %-" + width + "s  %-6s %s%n", "", "", line));
            }
        }
        return out.toString();
    }

    static List<String> wrap(String text, int width) {
        List<String> lines = new ArrayList<>();
        for (String paragraph : text.split("\n")) {
            StringBuilder line = new StringBuilder();
            for (String word : paragraph.split(" ")) {
                if (line.length() > 0 && line.length() + 1 + word.length() > width) {
                    lines.add(line.toString());
                    line.setLength(0);
                }
                if (line.length() > 0) {
                    line.append(' ');
                }
                line.append(word);
            }
            lines.add(line.toString());
        }
        return lines;
    }
}
