package io.kes.jobs.migrate;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.jobs.cli.ExitCode;
import io.kes.jobs.config.KesConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line of {@code bin/kes migrate}: what it writes, and the exit codes bin/kes documents. */
class MigrateTest {

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private PrintStream stdErr;
    private PrintStream stdOut;

    @BeforeEach
    void capture() {
        stdErr = System.err;
        stdOut = System.out;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setErr(stdErr);
        System.setOut(stdOut);
    }

    @Test
    void aPropertiesFileBecomesAJobFileThatLoads(@TempDir Path dir) throws Exception {
        Path connector = Files.writeString(
                dir.resolve("quickstart-elasticsearch.properties"),
                String.join(
                        "\n",
                        "name=elasticsearch-sink",
                        "connector.class=io.confluent.connect.elasticsearch.ElasticsearchSinkConnector",
                        "tasks.max=1",
                        "topics=test-elasticsearch-sink",
                        "key.ignore=true",
                        "connection.url=http://localhost:9200",
                        "type.name=kafka-connect"));
        Path mapping = dir.resolve("mapping.yaml");
        assertThat(Migrate.run(new String[] {
                    "--from-connect", connector.toString(), "--out", mapping.toString(), "--bootstrap-servers", "k:9092"
                }))
                .isEqualTo(ExitCode.OK);
        KesConfig job = KesConfig.parse(Files.readString(mapping), Map.of());
        assertThat(job.routes.get(0).index()).isEqualTo("test-elasticsearch-sink");
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("next: bin/kes check --config " + mapping);
    }

    @Test
    void anOptionKesCannotHonourEndsWithExitCode2AndEveryProblem(@TempDir Path dir) throws Exception {
        Path connector = Files.writeString(
                dir.resolve("c.json"),
                "{\"connector.class\":\"" + ConnectOptions.CONNECTOR_CLASS + "\",\"topics\":\"t\","
                        + "\"connection.url\":\"http://es:9200\",\"proxy.host\":\"p\",\"behavior.on.null.values\":\"ignore\"}");
        assertThat(Migrate.run(new String[] {"--from-connect", connector.toString()}))
                .isEqualTo(ExitCode.CONFIG);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains(
                        "cannot be migrated as it is (2 problems)",
                        "kes:   - proxy.host = p",
                        "kes:   - behavior.on.null.values");
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void aWrongCommandLineIsExitCode2() {
        assertThat(Migrate.run(new String[] {})).isEqualTo(ExitCode.CONFIG);
        assertThat(Migrate.run(new String[] {"--from"})).isEqualTo(ExitCode.CONFIG);
        assertThat(Migrate.run(new String[] {"--from-connect", "/no/such/file.json"}))
                .isEqualTo(ExitCode.CONFIG);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("cannot read /no/such/file.json");
    }
}
