package io.kes.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The secured broker's listeners authenticate what they claim to: SCRAM-SHA-512 over TLS and
 * mTLS, each refusing a client without the right credential.
 */
class SecuredKafkaBrokerIT {

    private final KafkaBroker kafka = SharedServers.securedKafka();
    private final KafkaSecurity security = kafka.security();

    @Test
    void aScramUserOverTlsProducesAndConsumes() throws Exception {
        kafka.createTopic("secured-scram", 1, Map.of());
        assertRoundTrip("secured-scram", security.saslSslClientProperties());
    }

    @Test
    void aClientPresentingItsCertificateProducesAndConsumesOverMutualTls() throws Exception {
        kafka.createTopic("secured-mtls", 1, Map.of());
        assertRoundTrip("secured-mtls", security.mtlsClientProperties());
    }

    @Test
    void theScramListenerRefusesAWrongPassword() {
        assertRefused(
                security.saslSslClientProperties(security.scramUser(), "not-" + security.scramPassword()),
                SaslAuthenticationException.class);
    }

    @Test
    void theMutualTlsListenerRefusesAClientWithoutACertificate() {
        Map<String, String> noCertificate = new HashMap<>(security.mtlsClientProperties());
        noCertificate.keySet().removeIf(k -> k.startsWith("ssl.keystore.") || k.equals("ssl.key.password"));
        assertRefused(noCertificate, SslAuthenticationException.class);
    }

    private static void assertRefused(Map<String, String> client, Class<? extends Exception> expected) {
        try (Admin admin = Admin.create(properties(client))) {
            assertThatThrownBy(() -> admin.describeCluster().nodes().get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(expected);
        }
    }

    private static void assertRoundTrip(String topic, Map<String, String> client) throws Exception {
        try (var producer = new KafkaProducer<>(properties(client), new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, "k", "v")).get(30, TimeUnit.SECONDS);
        }
        Properties consumerProps = properties(client);
        consumerProps.put("group.id", topic + "-reader");
        consumerProps.put("auto.offset.reset", "earliest");
        try (var consumer = new KafkaConsumer<>(consumerProps, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    assertThat(r.value()).isEqualTo("v");
                    return;
                }
            }
        }
        throw new AssertionError("nothing read back from " + topic + " within 30 s");
    }

    private static Properties properties(Map<String, String> client) {
        Properties props = new Properties();
        props.putAll(client);
        return props;
    }
}
