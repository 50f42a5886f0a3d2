package io.kes.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * kes-job.jar carries the SQL table factories of kes and of Kafka in one merged service file, so
 * a SQL job submitted with it finds both 'connector' = 'kes' and 'connector' = 'kafka'.
 */
class JobJarFactoriesIT {

    @Test
    void theJobJarRegistersTheKesAndKafkaTableFactories() throws Exception {
        try (JarFile jar = new JarFile(Path.of("target/kes-job.jar").toFile())) {
            String services = new String(
                    jar.getInputStream(jar.getEntry("META-INF/services/org.apache.flink.table.factories.Factory"))
                            .readAllBytes(),
                    StandardCharsets.UTF_8);
            assertThat(services)
                    .contains(
                            "io.kes.connector.table.KesTableSinkFactory",
                            "org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicTableFactory");
        }
    }
}
