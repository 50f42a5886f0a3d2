package io.kes.jobs.migrate;

import io.kes.jobs.migrate.ConnectOption.Family;

/**
 * The option table of docs/migration-from-kafka-connect.md, made from {@link ConnectOptions#ALL}
 * so that the guide says what {@code bin/kes migrate} does ({@code MigrationGuideTest} keeps the
 * two equal).
 */
final class MigrationGuide {

    static final String BEGIN = "<!-- options:connect generated from io.kes.jobs.migrate.ConnectOptions "
            + "(MigrationGuideTest); edit the rows there -->";
    static final String END = "<!-- /options:connect -->";

    private MigrationGuide() {}

    static String table() {
        StringBuilder out = new StringBuilder(BEGIN).append('\n');
        for (Family family : Family.values()) {
            out.append("\n### ").append(family.title).append("\n\n");
            out.append("| Connect option | kes | what kes does differently, or why it is refused |\n");
            out.append("|---|---|---|\n");
            for (ConnectOption o : ConnectOptions.ALL) {
                if (o.family() == family) {
                    out.append("| `")
                            .append(o.key())
                            .append(o.prefix() ? "*" : "")
                            .append("` | ")
                            .append(o.kes())
                            .append(" | ")
                            .append(o.note().isEmpty() ? "the same" : o.note().replace("|", "\\|"))
                            .append(" |\n");
                }
            }
        }
        return out.append('\n').append(END).toString();
    }
}
