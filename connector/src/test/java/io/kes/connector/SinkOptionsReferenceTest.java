package io.kes.connector;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kes.connector.testing.OptionCells;
import io.kes.connector.testing.ReferenceTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

/**
 * The job's YAML tables in docs/config-reference.md ({@code elasticsearch:}, {@code bulk:},
 * {@code retry:}; the job reads each sink option under its key) are generated from
 * {@link ElasticsearchSinkOptions}: one table per section, the key's first part, one row per option
 * in declaration order. A new section needs its table (the failure says where) before this passes.
 */
class SinkOptionsReferenceTest {

    /** What the tables call {@code required}; {@link #onlyTheHostsAreRequired()} holds the sink to it. */
    private static final Set<ConfigOption<?>> REQUIRED = Set.of(ElasticsearchSinkOptions.HOSTS);

    @Test
    void eachSectionsTableHasTheDeclaredKeysTypesAndDefaults() throws Exception {
        Map<String, List<ReferenceTables.Row>> sections = new LinkedHashMap<>();
        for (ConfigOption<?> option : ElasticsearchSinkOptions.all()) {
            String section = option.key().substring(0, option.key().indexOf('.'));
            sections.computeIfAbsent(section, s -> new ArrayList<>())
                    .add(ReferenceTables.Row.of(
                            option,
                            OptionCells.type(option, "list"),
                            OptionCells.defaultValue(option, REQUIRED.contains(option))));
        }
        ReferenceTables tables = new ReferenceTables(Path.of("../docs/config-reference.md"));
        sections.forEach(tables::generate);
        tables.verify();
    }

    @Test
    void onlyTheHostsAreRequired() {
        assertThatThrownBy(() -> SinkSettings.from(new Configuration()))
                .hasMessageStartingWith(ElasticsearchSinkOptions.HOSTS.key() + " is not set");
        Configuration hostsOnly = new Configuration();
        hostsOnly.set(ElasticsearchSinkOptions.HOSTS, List.of("http://localhost:9200"));
        assertThatCode(() -> SinkSettings.from(hostsOnly)).doesNotThrowAnyException();
    }
}
