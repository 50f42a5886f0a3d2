package io.kes.connector.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.MemorySize;
import org.junit.jupiter.api.Test;

/**
 * docs/config-reference.md lists every option of a {@code 'connector' = 'kes'} table with its type
 * and default, as the factory declares them, so the reference cannot drift from the code.
 */
class SqlOptionsReferenceTest {

    @Test
    void everyTableOptionIsDocumentedWithItsTypeAndDefault() throws Exception {
        String reference = Files.readString(Path.of("../docs/config-reference.md"));
        KesTableSinkFactory factory = new KesTableSinkFactory();
        List<ConfigOption<?>> options = new ArrayList<>(factory.requiredOptions());
        options.addAll(factory.optionalOptions());
        options.sort(Comparator.comparing(ConfigOption::key));
        List<String> missing = options.stream()
                .map(o -> "| `" + o.key() + "` | " + type(o) + " | " + (factory.requiredOptions().contains(o) ? "required" : defaultOf(o)) + " |")
                .filter(row -> !reference.contains(row)).toList();
        assertThat(missing).as("rows missing from the SQL table of docs/config-reference.md (key | type | default |)").isEmpty();
    }

    @Test
    void everySinkOptionHasASqlName() {
        assertThat(KesTableOptions.SINK_OPTIONS.stream().map(o -> o.sink().key()).collect(Collectors.toSet()))
                .containsExactlyInAnyOrderElementsOf(Arrays.stream(io.kes.connector.ElasticsearchSinkOptions.class.getFields())
                        .filter(f -> f.getType() == ConfigOption.class).map(f -> {
                            try {
                                return ((ConfigOption<?>) f.get(null)).key();
                            } catch (IllegalAccessException e) {
                                throw new AssertionError(e);
                            }
                        }).toList());
    }

    private static String type(ConfigOption<?> option) {
        if (option == KesTableOptions.TABLE_HOSTS) {
            return "list (`;`-separated)";
        }
        if (option == KesTableOptions.SINK_PARALLELISM || option == OfficialOptions.BACKOFF_MAX_RETRIES) {
            return "int"; // no default to tell its type by
        }
        if (OfficialOptions.WITHOUT_EQUIVALENT.containsKey(option.key())) {
            return "any"; // refused whatever the value
        }
        Object d = option.hasDefaultValue() ? option.defaultValue() : null;
        if (d instanceof Enum<?> e) {
            return Arrays.stream(e.getDeclaringClass().getEnumConstants()).map(v -> "`" + v.name().toLowerCase() + "`")
                    .collect(Collectors.joining(" \\| "));
        }
        if (d instanceof Duration) {
            return "duration";
        }
        if (d instanceof MemorySize) {
            return "size";
        }
        if (d instanceof Integer) {
            return "int";
        }
        if (d instanceof Boolean) {
            return "boolean";
        }
        return "string";
    }

    private static String defaultOf(ConfigOption<?> option) {
        if (!option.hasDefaultValue()) {
            return "none";
        }
        Object d = option.defaultValue();
        if (d instanceof Duration duration) {
            return "`" + (duration.toMillis() % 60_000 == 0 ? duration.toMinutes() + "min"
                    : duration.toMillis() % 1000 == 0 ? duration.toSeconds() + "s" : duration.toMillis() + "ms") + "`";
        }
        if (d instanceof MemorySize size) {
            long bytes = size.getBytes();
            return "`" + (bytes % (1 << 20) == 0 ? bytes / (1 << 20) + "mb" : bytes % 1024 == 0 ? bytes / 1024 + "kb" : bytes + "b") + "`";
        }
        if (d instanceof Enum<?> e) {
            return "`" + e.name().toLowerCase() + "`";
        }
        return "`" + d + "`";
    }
}
