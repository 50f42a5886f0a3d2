package io.kes.jobs.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class KafkaCheckTest {

    /** Issue 27 item 8: 'logs-Ba' and 'logs-CB' share String.hashCode, the topic part of a Kafka-coordinate id. */
    @Test
    void topicsWhoseKafkaCoordinateIdsWouldCollideAreFound() {
        assertThat("logs-Ba".hashCode()).isEqualTo("logs-CB".hashCode());
        assertThat(KafkaCheck.collidingTopics(List.of("orders", "logs-Ba", "logs-CB")))
                .contains(List.of("logs-Ba", "logs-CB"));
        assertThat(KafkaCheck.collidingTopics(List.of("orders", "logs-Ba", "logs-Bb")))
                .isEmpty();
    }
}
