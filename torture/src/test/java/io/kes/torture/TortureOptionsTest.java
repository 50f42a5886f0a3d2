package io.kes.torture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class TortureOptionsTest {

    private static final Path DIR = Path.of("work");

    @Test
    void kindsNamesTheOnlyKindsToInjectByTheirLabels() {
        assertThat(TortureOptions.parse(new String[] {"--kinds", "rescale, job-kill"}, DIR)
                        .kinds())
                .containsExactlyInAnyOrder(FaultKind.RESCALE, FaultKind.JOB_KILL);
        assertThat(TortureOptions.parse(new String[0], DIR).kinds())
                .as("every kind")
                .isEmpty();
    }

    @Test
    void anUnknownKindOrOneTheNodesCannotTakeIsRefusedNamingTheKindsThereAre() {
        assertThatThrownBy(() -> TortureOptions.parse(new String[] {"--kinds", "rescal"}, DIR))
                .hasMessageContaining("no fault kind 'rescal'")
                .hasMessageContaining("rescale");
        assertThatThrownBy(() -> TortureOptions.parse(new String[] {"--kinds", "node-stall"}, DIR))
                .hasMessageContaining("--nodes 1")
                .hasMessageContaining("job-kill");
        assertThatThrownBy(() -> TortureOptions.parse(new String[] {"--kinds", "conn-reset", "--nodes", "3"}, DIR))
                .hasMessageContaining("[conn-reset] cannot be injected with --nodes 3");
    }

    @Test
    void aSoakIsOneScheduleAsLongAsItsMinutesAtAModerateRateUnlessTheUpdatesAreGiven() {
        TortureOptions soak = TortureOptions.parse(new String[] {"--soak", "30"}, DIR);
        assertThat(soak.soak()).isTrue();
        assertThat(soak.schedules()).isEqualTo(1);
        assertThat(soak.window()).hasMinutes(30);
        assertThat(soak.updates()).isEqualTo(TortureOptions.SOAK_UPDATES_PER_SECOND * 30 * 60);
        assertThat(TortureOptions.parse(new String[] {"--soak", "30", "--updates", "5000"}, DIR)
                        .updates())
                .isEqualTo(5000);
        assertThat(TortureOptions.parse(new String[0], DIR).soak()).isFalse();
    }
}
