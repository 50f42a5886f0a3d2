package io.kes.jobs.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaSettingsTest {

    @Test
    void secretsInKafkaPropertiesComeFromFilesAndEnvironmentAndNeverShowInToString(@TempDir Path dir) throws Exception {
        Path password = dir.resolve("kafka-password");
        Files.writeString(password, "scram-secret\n"); // a mounted Secret often ends with a newline
        KesConfig config = KesConfig.parse(
                String.join(
                        "\n",
                        "elasticsearch: {hosts: [http://localhost:9200]}",
                        "kafka:",
                        "  bootstrap_servers: broker:9093",
                        "  properties:",
                        "    security.protocol: SASL_SSL",
                        "    sasl.mechanism: SCRAM-SHA-512",
                        "    sasl.jaas.config: 'org.apache.kafka.common.security.scram.ScramLoginModule required username=\"kes\" password=\"${file:"
                                + password + "}\";'",
                        "    ssl.truststore.password: ${TRUSTSTORE_PASSWORD}",
                        "    ssl.keystore.password: keystore-secret",
                        "    my.custom.secret: custom-secret",
                        "routes: [{topics: [a], index: a}]"),
                Map.of("TRUSTSTORE_PASSWORD", "truststore-secret"));

        assertThat(config.kafka.properties())
                .containsEntry(
                        "sasl.jaas.config",
                        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"kes\" password=\"scram-secret\";");
        assertThat(config.kafka.properties()).containsEntry("ssl.truststore.password", "truststore-secret");
        assertThat(config.kafka.toString())
                .contains(
                        "security.protocol=SASL_SSL",
                        "sasl.mechanism=SCRAM-SHA-512",
                        "sasl.jaas.config=[hidden]",
                        "ssl.truststore.password=[hidden]",
                        "ssl.keystore.password=[hidden]",
                        "my.custom.secret=[hidden]")
                .doesNotContain("scram-secret", "truststore-secret", "keystore-secret", "custom-secret");
    }
}
