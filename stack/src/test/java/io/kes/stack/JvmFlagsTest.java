package io.kes.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

class JvmFlagsTest {

    @Test
    void theBuildWroteThePomsFlagsIntoTheResource() {
        assertThat(JvmFlags.forFlink())
                .isNotEmpty()
                .allSatisfy(flag -> assertThat(flag).startsWith("--").doesNotContain("${"));
    }

    @Test
    void theTestsJvmRunsWithTheFlagsTheLaunchersPass() {
        // surefire's argLine and kes-jvm-flags.txt come from the same pom property; this fails if one stops using it
        assertThat(ManagementFactory.getRuntimeMXBean().getInputArguments()).containsAll(JvmFlags.forFlink());
    }
}
