package io.kes.stack.junit;

import io.kes.stack.KafkaBroker;
import io.kes.stack.SharedServers;

/** Gives a test the shared real Kafka broker (KRaft) as a {@link KafkaBroker} parameter; tests create their own topics. */
public class KafkaExtension extends SharedServerExtension<KafkaBroker> {

    public KafkaExtension() {
        super(KafkaBroker.class, SharedServers::kafka);
    }
}
