package io.kes.jobs.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** docs/config-reference.md lists every key the config accepts, so the reference cannot drift from the code. */
class ConfigReferenceTest {

    @Test
    void everyAcceptedKeyIsDocumented() throws Exception {
        String reference = Files.readString(Path.of("../docs/config-reference.md"));
        List<String> keys = new ArrayList<>(KesConfig.sinkOptionsByKey().keySet());
        add(keys, "kafka.", KafkaSettings.KEYS);
        add(keys, "routes[].", Route.KEYS);
        add(keys, "routes[].index_template.", IndexTemplateSettings.KEYS);
        add(keys, "errors.", ErrorSettings.KEYS);
        add(keys, "job.", KesConfig.JobSettings.KEYS);
        List<String> missing = keys.stream().filter(k -> !reference.contains("| `" + k + "` |")).toList();
        assertThat(missing).as("keys missing from docs/config-reference.md").isEmpty();
    }

    private static void add(List<String> keys, String prefix, Set<String> names) {
        names.forEach(n -> keys.add(prefix + n));
    }
}
