package io.kes.jobs.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.ElasticsearchSinkOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.junit.jupiter.api.Test;

/** docs/config-reference.md lists every key the config accepts, so the reference cannot drift from the code. */
class ConfigReferenceTest {

    @Test
    void everyAcceptedKeyIsDocumented() throws Exception {
        String reference = reference();
        List<String> keys = new ArrayList<>(KesConfig.sinkOptionsByKey().keySet());
        add(keys, "kafka.", KafkaSettings.KEYS);
        add(keys, "routes[].", Route.KEYS);
        add(keys, "routes[].index_template.", IndexTemplateSettings.KEYS);
        add(keys, "errors.", ErrorSettings.KEYS);
        add(keys, "job.", KesConfig.JobSettings.KEYS);
        add(keys, "schema_registry.", RegistrySettings.KEYS);
        List<String> missing = keys.stream()
                .filter(k -> !reference.contains("| `" + k + "` |"))
                .toList();
        assertThat(missing).as("keys missing from docs/config-reference.md").isEmpty();
    }

    /**
     * The type and default the reference gives each sink option are the ones declared in
     * {@link ElasticsearchSinkOptions}: the documented default, parsed as the option, is its
     * default; a value of the documented type parses as the option, into that type.
     */
    @Test
    void everySinkOptionIsDocumentedWithItsDeclaredTypeAndDefault() throws Exception {
        String reference = reference();
        List<String> wrong = new ArrayList<>();
        for (ConfigOption<?> option : ElasticsearchSinkOptions.all()) {
            Matcher row = Pattern.compile("(?m)^\\| `" + Pattern.quote(option.key()) + "` \\| (.+?) \\| (.+?) \\|")
                    .matcher(reference);
            if (!row.find()) {
                wrong.add(option.key() + ": no row");
                continue;
            }
            String type = row.group(1);
            String documentedDefault = row.group(2);
            String typeProblem = typeProblem(option, type);
            if (typeProblem != null) {
                wrong.add(option.key() + ": documented type '" + type + "', " + typeProblem);
            }
            String defaultProblem = defaultProblem(option, documentedDefault);
            if (defaultProblem != null) {
                wrong.add(option.key() + ": documented default '" + documentedDefault + "', " + defaultProblem);
            }
        }
        assertThat(wrong)
                .as("sink options whose row in docs/config-reference.md disagrees with ElasticsearchSinkOptions")
                .isEmpty();
    }

    /** A sample of the documented type must parse as the option into that type; null when it does. */
    private static String typeProblem(ConfigOption<?> option, String documented) {
        Class<?> expected;
        String sample;
        Set<String> enumValues = backticked(documented);
        if (!enumValues.isEmpty()) {
            if (!(option.defaultValue() instanceof Enum<?> e)) {
                return "but the option is not an enum";
            }
            Set<String> declared = Arrays.stream(e.getDeclaringClass().getEnumConstants())
                    .map(Object::toString)
                    .collect(Collectors.toSet());
            return declared.equals(enumValues) ? null : "but the option takes " + declared;
        } else if (documented.startsWith("list")) {
            expected = List.class;
            sample = "http://a:9200;http://b:9200";
        } else if (documented.startsWith("int")) {
            expected = Integer.class;
            sample = "7";
        } else if (documented.startsWith("size")) {
            expected = MemorySize.class;
            sample = "2mb";
        } else if (documented.equals("duration")) {
            expected = Duration.class;
            sample = "7s";
        } else if (documented.equals("boolean")) {
            expected = Boolean.class;
            sample = "true";
        } else if (Set.of("string", "path", "hex").contains(documented)) {
            expected = String.class;
            sample = "7s"; // would parse as a duration too: only a string option keeps it a String
        } else {
            return "a type this test does not know";
        }
        try {
            Object parsed = parse(option, sample);
            return expected.isInstance(parsed)
                    ? null
                    : "but the option reads '" + sample + "' as "
                            + parsed.getClass().getSimpleName();
        } catch (IllegalArgumentException e) {
            return "but the option does not take '" + sample + "': " + e.getMessage();
        }
    }

    /** "required", "none" or a description for options without a default; else `value`, equal to the declared default once parsed. */
    private static String defaultProblem(ConfigOption<?> option, String documented) {
        Set<String> values = backticked(documented);
        if (values.isEmpty()) {
            return option.hasDefaultValue() ? "but the option's default is " + option.defaultValue() : null;
        }
        if (!option.hasDefaultValue()) {
            return "but the option has no default";
        }
        Object parsed;
        try {
            parsed = parse(option, values.iterator().next());
        } catch (IllegalArgumentException e) {
            return "which the option does not take: " + e.getMessage();
        }
        return parsed.equals(option.defaultValue()) ? null : "but the option's default is " + option.defaultValue();
    }

    private static Object parse(ConfigOption<?> option, String text) {
        Configuration c = new Configuration();
        c.setString(option.key(), text);
        return c.get(option);
    }

    private static Set<String> backticked(String cell) {
        Matcher m = Pattern.compile("`([^`]+)`").matcher(cell);
        Set<String> values = new java.util.LinkedHashSet<>();
        while (m.find()) {
            values.add(m.group(1));
        }
        return values;
    }

    private static String reference() throws Exception {
        return Files.readString(Path.of("../docs/config-reference.md"));
    }

    private static void add(List<String> keys, String prefix, Set<String> names) {
        names.forEach(n -> keys.add(prefix + n));
    }
}
