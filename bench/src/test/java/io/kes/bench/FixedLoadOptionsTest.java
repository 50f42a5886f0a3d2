package io.kes.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class FixedLoadOptionsTest {

    @Test
    void defaultsAreTheIssuesLoadEveryModeWithAndWithoutTheStallAndADatedResultsFolder() {
        BenchOptions o = BenchOptions.parse(new String[] {"--scenario", "fixed-load", "--es-version", "8.19.21"});

        assertThat(o.rate).isEqualTo(3_000);
        assertThat(o.seconds).isEqualTo(60);
        assertThat(o.rounds).isEqualTo(3);
        assertThat(o.modes).isEqualTo(FixedLoadScenario.MODES);
        assertThat(o.stalls).containsExactly(true, false);
        assertThat(o.out.getFileName().toString()).startsWith("fixed-load-");
    }

    @Test
    void variantsAreEveryModeTimesEveryStallSetting() {
        BenchOptions o = BenchOptions.parse(new String[] {
            "--scenario", "fixed-load", "--modes", "kes,kes-mixed", "--stall", "on", "--out", "x", "--rounds", "1"
        });

        assertThat(new FixedLoadScenario(o, null).variants())
                .containsExactly(
                        new FixedLoadScenario.Variant("kes", true), new FixedLoadScenario.Variant("kes-mixed", true));
        assertThat(o.out).isEqualTo(Path.of("x"));
    }

    @Test
    void eachKesModeAddsItsOwnBulkSettingsBeforeTheUsersOnes() {
        assertThat(FixedLoadScenario.bulkSettings("kes", "")).isEmpty();
        assertThat(FixedLoadScenario.bulkSettings("kes-mixed", "")).isEqualTo("shard_grouping: false");
        assertThat(FixedLoadScenario.bulkSettings("kes-linger", "topology: keyed"))
                .isEqualTo("coalesce: 1s, topology: keyed");
        assertThat(List.of(FixedLoadScenario.bulkSettings("kes", "topology: keyed")))
                .containsExactly("topology: keyed");
    }
}
