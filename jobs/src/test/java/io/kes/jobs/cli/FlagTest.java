package io.kes.jobs.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class FlagTest {

    @Test
    void helpListsEveryFlagWithItsMeaningAndTheExitCodes() {
        String help = Flag.help("bin/kes run", "Runs the job.", Flag.RUN);
        for (Flag f : Flag.RUN) {
            assertThat(help).contains(f.name, f.meaning);
        }
        for (ExitCode c : ExitCode.values()) {
            assertThat(help).contains(c.code + "  " + c.meaning);
        }
    }

    @Test
    void switchesAndValuesAreParsedAndMistakesNamed() {
        Map<Flag, String> flags = Flag.parse(new String[] {"--config", "a.yaml", "--quiet"}, Flag.RUN, "bin/kes run");
        assertThat(flags).containsEntry(Flag.CONFIG, "a.yaml").containsEntry(Flag.QUIET, "true");
        assertThatThrownBy(() -> Flag.parse(new String[] {"--quiet"}, Flag.CHECK, "bin/kes check"))
                .hasMessage("unknown argument '--quiet' for bin/kes check; see bin/kes check --help");
        assertThatThrownBy(() -> Flag.parse(new String[] {"--config"}, Flag.CHECK, "bin/kes check"))
                .hasMessage("--config needs a value: --config FILE");
    }
}
