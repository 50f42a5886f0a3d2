package io.kes.stack;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * Where Maven put the server distributions: {@code stack/target/elasticsearch/elasticsearch-<ver>}
 * and {@code stack/target/opensearch/opensearch-<ver>} (unpacked integ-test-zips) and {@code stack/target/kafka-libs} (the broker's jars). The path is
 * written into {@code kes-stack.properties} at build time, so every module of the checkout (and
 * {@code bin/kes}) finds the same files without a second download.
 */
public final class StackLayout {

    private final Path stackDir;
    private final Properties props;

    private StackLayout(Path stackDir, Properties props) {
        this.stackDir = stackDir;
        this.props = props;
    }

    public static StackLayout fromBuild() {
        Properties props = new Properties();
        try (InputStream in = StackLayout.class.getResourceAsStream("/kes-stack.properties")) {
            if (in == null) {
                throw new IllegalStateException(
                        "kes-stack.properties is missing from the classpath: build the stack module with ./mvnw -pl stack install");
            }
            props.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String override = System.getProperty("kes.stack.dir", System.getenv("KES_STACK_DIR"));
        Path dir = Path.of(override != null ? override : props.getProperty("stack.dir"));
        return new StackLayout(dir, props);
    }

    public String elasticsearch9Version() {
        return props.getProperty("elasticsearch9.version");
    }

    public String elasticsearch8Version() {
        return props.getProperty("elasticsearch8.version");
    }

    public String opensearch3Version() {
        return props.getProperty("opensearch3.version");
    }

    public String opensearch2Version() {
        return props.getProperty("opensearch2.version");
    }

    public Path elasticsearchHome(String version) {
        return distributionHome(Engine.ELASTICSEARCH, version);
    }

    /** {@code target/elasticsearch/elasticsearch-<ver>} or {@code target/opensearch/opensearch-<ver>}. */
    public Path distributionHome(Engine engine, String version) {
        Path home = stackDir.resolve(engine.command()).resolve(engine.command() + "-" + version);
        if (!Files.isDirectory(home.resolve("bin"))) {
            throw new IllegalStateException(engine.displayName() + " " + version + " is not unpacked at " + home
                    + ": run ./mvnw -pl stack generate-resources (it fetches the integ-test-zip from Maven Central)");
        }
        return home;
    }

    public Path kafkaLibs() {
        Path libs = stackDir.resolve("kafka-libs");
        if (!Files.isDirectory(libs)) {
            throw new IllegalStateException("Kafka broker jars are missing at " + libs
                    + ": run ./mvnw -pl stack generate-resources (it copies kafka_2.13 from Maven Central)");
        }
        return libs;
    }

    /** Scratch space for nodes started by tests: under target/, so {@code mvn clean} removes it. */
    public Path runDir() {
        return stackDir.resolve("run");
    }
}
