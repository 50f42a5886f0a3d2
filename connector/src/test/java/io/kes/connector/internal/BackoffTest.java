package io.kes.connector.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {

    @Test
    void delaysDoubleWithJitterAndStopGrowingAtTheMaximum() {
        Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(5));
        for (int i = 0; i < 200; i++) {
            assertThat(backoff.delayMillis(0)).isBetween(50L, 100L);
            assertThat(backoff.delayMillis(3)).isBetween(400L, 800L);
            assertThat(backoff.delayMillis(40)).isBetween(2500L, 5000L);
        }
    }
}
