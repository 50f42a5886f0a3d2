package io.kes.sql;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The Python environment {@code sql/pyflink-env.sh} makes once (a venv with the apache-flink
 * package, outside target/): its interpreter, and the whole Flink distribution that the package
 * carries ({@code bin/sql-client.sh}, {@code jobmanager.sh}, {@code taskmanager.sh}, {@code lib/},
 * {@code opt/}). Where it cannot be made (no python3, no venv module, no network to the package
 * index), the test is skipped with the script's reason and how to fix it.
 */
record PyFlinkEnvironment(Path dir) {

    static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
    /** A cold install downloads about 400 MB of wheels and unpacks about 1 GB. */
    private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(20);

    private static PyFlinkEnvironment made;

    /** The environment, made on the first call of this JVM; aborts the test (skipped) where it cannot be made. */
    static synchronized PyFlinkEnvironment orSkip() throws Exception {
        if (made == null) {
            ChildRun run = ChildRun.of(
                    List.of("bash", REPOSITORY.resolve("sql/pyflink-env.sh").toString()),
                    Map.of(),
                    REPOSITORY,
                    Path.of("target/pyflink-env.log"),
                    INSTALL_TIMEOUT);
            System.out.println("[kes] sql/pyflink-env.sh took " + run.took().toMillis() + " ms");
            assumeTrue(
                    run.succeeded(),
                    () -> "Skipped: no PyFlink environment. " + run.describe()
                            + "\nFix what its last line says (it needs python3 3.9-3.12 with the venv module, and pip's access to the"
                            + " package index), then run sql/pyflink-env.sh once by hand to check.");
            List<String> lines = run.output().lines().toList();
            made = new PyFlinkEnvironment(Path.of(lines.get(lines.size() - 1).strip()));
        }
        return made;
    }

    Path python() {
        return dir.resolve("bin/python");
    }

    /** FLINK_HOME: the distribution inside the apache-flink package. */
    Path flinkHome() {
        return dir.resolve("flink").toAbsolutePath();
    }

    /**
     * What every process of the distribution gets: this test's own JVM (Java 17, as the build)
     * instead of whatever JAVA_HOME says, the distribution's own conf/ (unchanged: the tests
     * pass their ports as -D options), and logs and pid files under target/ instead of the
     * shared venv and /tmp.
     */
    Map<String, String> processEnv(Path logDir) throws Exception {
        Files.createDirectories(logDir);
        return Map.of(
                "JAVA_HOME",
                System.getProperty("java.home"),
                "FLINK_CONF_DIR",
                flinkHome().resolve("conf").toString(),
                "FLINK_LOG_DIR",
                logDir.toAbsolutePath().toString(),
                "FLINK_PID_DIR",
                logDir.toAbsolutePath().toString());
    }

    /**
     * {@link #processEnv} for {@code bin/sql-client.sh}, with an opt/ that has the package's
     * jars and what its opt/ lacks: the client needs opt/flink-sql-gateway-*.jar (a Flink download has it;
     * without it the client fails with NoClassDefFoundError ...gateway/service/context/DefaultContext).
     * The jar comes from Maven (sql/target/flink-sql-gateway.jar); the package's opt/ is left as it is.
     */
    Map<String, String> sqlClientEnv(Path workDir) throws Exception {
        Path opt = Files.createDirectories(workDir.resolve("opt"));
        List<Path> jars =
                new ArrayList<>(List.of(Path.of("target/flink-sql-gateway.jar").toAbsolutePath()));
        try (DirectoryStream<Path> packaged =
                Files.newDirectoryStream(flinkHome().resolve("opt"), "*.jar")) {
            packaged.forEach(jars::add); // the client itself, and flink-python (the client reads Python options)
        }
        for (Path jar : jars) {
            Files.deleteIfExists(opt.resolve(jar.getFileName()));
            Files.createSymbolicLink(opt.resolve(jar.getFileName()), jar);
        }
        Map<String, String> env = new HashMap<>(processEnv(workDir.resolve("log")));
        env.put("FLINK_OPT_DIR", opt.toAbsolutePath().toString());
        return env;
    }
}
