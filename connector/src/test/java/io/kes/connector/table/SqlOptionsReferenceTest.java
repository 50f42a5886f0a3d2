package io.kes.connector.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.testing.OptionCells;
import io.kes.connector.testing.ReferenceTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.FallbackKey;
import org.junit.jupiter.api.Test;

/**
 * The SQL tables of docs/config-reference.md are generated from the options a {@code 'connector' =
 * 'kes'} table declares: kes's own ({@link KesTableOptions#all()}, with the official connectors'
 * names of an option as its fallback keys) and the official connectors' options kes has no key for
 * ({@link OfficialOptions}), each row's key(s), type, default and meaning (the description) as declared.
 */
class SqlOptionsReferenceTest {

    private static final Pattern BACKTICKED = Pattern.compile("`([^`]+)`");

    @Test
    void theTablesHaveTheDeclaredKeysTypesAndDefaults() throws Exception {
        Set<ConfigOption<?>> required = new KesTableSinkFactory().requiredOptions();
        List<ReferenceTables.Row> kes = new ArrayList<>();
        for (ConfigOption<?> option : KesTableOptions.all()) {
            kes.add(ReferenceTables.Row.of(
                    option,
                    OptionCells.type(option, "list (`;`-separated)"),
                    OptionCells.defaultValue(option, required.contains(option))));
            if (option == KesTableOptions.DEAD_LETTER_BOOTSTRAP_SERVERS) {
                // Not an option but a prefix, read by the dead-letter queue: its row follows the other dead-letter
                // options.
                ConfigOption<?> properties = KesTableOptions.DEAD_LETTER_PROPERTIES;
                kes.add(ReferenceTables.Row.of(
                        properties, OptionCells.type(properties, "list"), OptionCells.defaultValue(properties, false)));
            }
        }
        List<ReferenceTables.Row> official = OfficialOptions.all().stream()
                .map(option -> ReferenceTables.Row.of(
                        option,
                        OfficialOptions.WITHOUT_EQUIVALENT.containsKey(option.key())
                                        || OfficialOptions.KEPT_BY_KES.containsKey(option.key())
                                ? "any"
                                : OptionCells.type(option, "list"),
                        OptionCells.defaultValue(option, false)))
                .toList();
        new ReferenceTables(Path.of("../docs/config-reference.md"))
                .generate("sql", kes)
                .generate("sql-official", official)
                .verify();
    }

    /** The tables above are the factory's options: one it takes but the reference does not list would go undocumented. */
    @Test
    void theTablesListEveryOptionTheFactoryTakes() {
        KesTableSinkFactory factory = new KesTableSinkFactory();
        List<String> listed = new ArrayList<>();
        KesTableOptions.all().forEach(option -> listed.add(option.key()));
        OfficialOptions.all().forEach(option -> listed.add(option.key()));
        List<String> taken = new ArrayList<>();
        factory.requiredOptions().forEach(option -> taken.add(option.key()));
        factory.optionalOptions().forEach(option -> taken.add(option.key()));
        assertThat(listed).containsExactlyInAnyOrderElementsOf(taken);
    }

    /**
     * docs/sql.md's migration table has a row for every official option a kes table takes, and the
     * row of a fallback key names the kes option it is read as.
     */
    @Test
    void theMigrationTableHasEveryOfficialKeyAndWhatKesReadsItAs() throws Exception {
        List<String> rows = Files.readAllLines(Path.of("../docs/sql.md")).stream()
                .filter(line -> line.startsWith("| `"))
                .toList();
        List<String> wrong = new ArrayList<>();
        for (ConfigOption<?> option : KesTableOptions.all()) {
            for (FallbackKey fallback : option.fallbackKeys()) {
                String row = migrationRow(rows, fallback.getKey());
                if (row == null || !row.substring(row.indexOf('|', 1)).contains("`" + option.key() + "`")) {
                    wrong.add("| `" + fallback.getKey() + "` (connectors) | `" + option.key() + "` ... |"
                            + (row == null ? " (no row)" : " (found: " + row + ")"));
                }
            }
        }
        for (ConfigOption<?> option : OfficialOptions.all()) {
            if (migrationRow(rows, option.key()) == null) {
                wrong.add("| `" + option.key() + "` (connectors) | what kes does with it |");
            }
        }
        assertThat(wrong)
                .as("rows docs/sql.md's migration table lacks (official option | what kes does with it)")
                .isEmpty();
    }

    /** The row whose first cell names the key, or a {@code prefix.*} it falls under; null when none does. */
    private static String migrationRow(List<String> rows, String key) {
        for (String row : rows) {
            String first = row.substring(1, row.indexOf('|', 1));
            Matcher named = BACKTICKED.matcher(first);
            while (named.find()) {
                String name = named.group(1);
                if (name.equals(key) || name.endsWith(".*") && key.startsWith(name.substring(0, name.length() - 1))) {
                    return row;
                }
            }
        }
        return null;
    }

    @Test
    void everySinkOptionHasASqlName() {
        assertThat(KesTableOptions.SINK_OPTIONS.stream()
                        .map(o -> o.sink().key())
                        .collect(Collectors.toSet()))
                .containsExactlyInAnyOrderElementsOf(Arrays.stream(
                                io.kes.connector.ElasticsearchSinkOptions.class.getFields())
                        .filter(f -> f.getType() == ConfigOption.class)
                        .map(f -> {
                            try {
                                return ((ConfigOption<?>) f.get(null)).key();
                            } catch (IllegalAccessException e) {
                                throw new AssertionError(e);
                            }
                        })
                        .toList());
    }
}
