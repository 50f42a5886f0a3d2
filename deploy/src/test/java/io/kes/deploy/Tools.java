package io.kes.deploy;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The command line tools the deployment tests drive, the repository's files, and YAML parsing. */
final class Tools {

    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /** The repository root: the first parent of the working directory holding docker-compose.yml and checkpoints-config/. */
    static final Path REPO = findRepo();

    private Tools() {}

    private static Path findRepo() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("docker-compose.yml"))
                    && Files.isDirectory(p.resolve("checkpoints-config"))) {
                return p;
            }
        }
        throw new IllegalStateException("no repository root (docker-compose.yml + checkpoints-config/) above "
                + Path.of("").toAbsolutePath());
    }

    /** helm from PATH or $HOME/go/bin (where `go install` puts it); skips the test when absent. */
    static Path helm() {
        Optional<Path> helm =
                onPath("helm").or(() -> executable(Path.of(System.getProperty("user.home"), "go", "bin", "helm")));
        assumeTrue(
                helm.isPresent(),
                "helm is not installed (looked on PATH and in ~/go/bin): "
                        + "run `bash .ci/install-deploy-tools.sh` or `go install helm.sh/helm/v3/cmd/helm@v3.17.3`");
        return helm.get();
    }

    /** docker-compose from PATH; skips the test when absent. */
    static Path dockerCompose() {
        Optional<Path> compose = onPath("docker-compose");
        assumeTrue(
                compose.isPresent(),
                "docker-compose is not installed: run `bash .ci/install-deploy-tools.sh` "
                        + "or `apt-get install -y docker-compose` (it validates compose files without a Docker engine)");
        return compose.get();
    }

    /** bash, for the compose stack's entry point script. */
    static Path bash() {
        Optional<Path> bash = onPath("bash");
        assumeTrue(bash.isPresent(), "bash is not installed");
        return bash.get();
    }

    private static Optional<Path> onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        return Stream.of(path.split(File.pathSeparator))
                .filter(dir -> !dir.isEmpty())
                .map(dir -> Path.of(dir, name))
                .flatMap(p -> executable(p).stream())
                .findFirst();
    }

    private static Optional<Path> executable(Path p) {
        return Files.isRegularFile(p) && Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
    }

    record Result(int exitCode, String stdout, String stderr) {
        String all() {
            return stdout + stderr;
        }
    }

    /** Runs a command in the repository root, waiting at most two minutes. */
    static Result run(Map<String, String> env, String... command) {
        try {
            ProcessBuilder pb = new ProcessBuilder(command).directory(REPO.toFile());
            pb.environment().putAll(env);
            Path out = Files.createTempFile("kes-deploy-", ".out");
            Path err = Files.createTempFile("kes-deploy-", ".err");
            try {
                pb.redirectOutput(out.toFile()).redirectError(err.toFile());
                Process process = pb.start();
                if (!process.waitFor(2, TimeUnit.MINUTES)) {
                    process.destroyForcibly();
                    throw new AssertionError("timed out: " + String.join(" ", command));
                }
                return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    static Result run(String... command) {
        return run(Map.of(), command);
    }

    static String read(String relativePath) {
        try {
            return Files.readString(REPO.resolve(relativePath), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JsonNode yaml(String text) {
        try {
            return YAML.readTree(text);
        } catch (IOException e) {
            throw new AssertionError("not valid YAML: " + e.getMessage() + "\n" + text, e);
        }
    }

    /** Every document of a multi-document YAML stream (helm template output), empty ones left out. */
    static List<JsonNode> yamlDocuments(String text) {
        List<JsonNode> docs = new ArrayList<>();
        try (var parser = YAML.getFactory().createParser(text)) {
            Iterator<JsonNode> it = YAML.readValues(parser, JsonNode.class);
            while (it.hasNext()) {
                JsonNode doc = it.next();
                if (doc != null && !doc.isNull() && !doc.isMissingNode() && doc.size() > 0) {
                    docs.add(doc);
                }
            }
        } catch (IOException e) {
            throw new AssertionError("not valid YAML: " + e.getMessage() + "\n" + text, e);
        }
        return docs;
    }

    /** A flat YAML map (a Flink configuration file) as key -> value text, as Flink reads it. */
    static Map<String, String> flatMap(JsonNode node) {
        Map<String, String> map = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            if (e.getValue().getNodeType() == JsonNodeType.OBJECT
                    || e.getValue().isArray()) {
                throw new AssertionError("expected a flat map, " + e.getKey() + " is " + e.getValue());
            }
            map.put(e.getKey(), e.getValue().asText());
        }
        return map;
    }

    /** checkpoints-config/&lt;name&gt;.yaml as key -> value. */
    static Map<String, String> checkpointsConfig(String name) {
        return flatMap(yaml(read("checkpoints-config/" + name + ".yaml")));
    }

    /** A property of the root pom (pom.xml &lt;properties&gt;). */
    static String pomProperty(String name) {
        Matcher m = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</" + Pattern.quote(name) + ">")
                .matcher(read("pom.xml"));
        if (!m.find()) {
            throw new AssertionError("pom.xml has no property " + name);
        }
        return m.group(1).trim();
    }

    /** The ${VAR} environment references of a kes mapping (not ${file:...}), with any :-default removed. */
    static List<String> envReferences(String mapping) {
        List<String> vars = new ArrayList<>();
        Matcher m = Pattern.compile("\\$\\{([^}]+)}").matcher(mapping);
        while (m.find()) {
            String ref = m.group(1);
            if (!ref.startsWith("file:")) {
                int dash = ref.indexOf(":-");
                vars.add(dash >= 0 ? ref.substring(0, dash) : ref);
            }
        }
        return vars;
    }
}
