package io.kes.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;

/**
 * The SQL-client jar (after {@code package}): the kes factory is registered for Flink's service
 * loader, the connector and the REST client are inside, their Jackson and HttpClient relocated,
 * and nothing of Flink is (the cluster has it).
 */
class SqlConnectorJarIT {

    @Test
    void theSqlClientJarRegistersTheKesFactoryAndCarriesItsDependenciesRelocated() throws Exception {
        try (JarFile jar = new JarFile(Path.of("target/kes-sql-connector.jar").toFile())) {
            ZipEntry services = jar.getEntry("META-INF/services/org.apache.flink.table.factories.Factory");
            assertThat(services).as("factory service file").isNotNull();
            assertThat(new String(jar.getInputStream(services).readAllBytes(), StandardCharsets.UTF_8))
                    .contains("io.kes.connector.table.KesTableSinkFactory");
            List<String> names = jar.stream().map(ZipEntry::getName).toList();
            assertThat(names)
                    .contains(
                            "io/kes/connector/table/KesTableSinkFactory.class",
                            "io/kes/connector/ElasticsearchSink.class",
                            "org/elasticsearch/client/RestClient.class",
                            "io/kes/shaded/com/fasterxml/jackson/databind/ObjectMapper.class",
                            "io/kes/shaded/org/apache/http/HttpHost.class");
            assertThat(names)
                    .noneMatch(n -> n.startsWith("org/apache/flink/")
                            || n.startsWith("com/fasterxml/")
                            || n.startsWith("org/apache/http/")
                            || n.startsWith("io/kes/sql/"));
        }
    }
}
