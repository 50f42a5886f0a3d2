package io.kes.stack;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * A secured node keeps its native users and API keys in the {@code .security} index, whose
 * mapping uses an "email" analyzer made of {@code uax_url_email}, {@code pattern_capture} and
 * {@code unique}. Those come with the analysis-common module, which the integ-test-zip (the only
 * Elasticsearch distribution on Maven Central) leaves out: there {@code POST _security/api_key}
 * fails with "Unknown filter type [pattern_capture]". This makes, once per version, a copy of the
 * distribution (hard links: no space, no time) with a small plugin providing the three from the
 * Lucene classes the distribution ships, compiled here against its own jars.
 */
final class SecurityAnalysisShim {

    private static final String PLUGIN = "kes-security-analysis";
    private static final String SOURCE = "/security-analysis-shim/KesSecurityAnalysisShim.java.txt";

    private SecurityAnalysisShim() {}

    /** The distribution at {@code home}, plus the plugin: a home under {@code runDir}, made on first use. */
    static synchronized Path homeWithShim(Path home, String version, Path runDir, Path javaHome) {
        Path target = runDir.resolve("es-home-secured-" + version);
        Path descriptor = target.resolve("plugins").resolve(PLUGIN).resolve("plugin-descriptor.properties");
        if (Files.exists(descriptor)) {
            return target;
        }
        try {
            Files.createDirectories(runDir);
            Path staging = Files.createTempDirectory(runDir, "es-home-staging-");
            Path copy = staging.resolve("home");
            if (UnprivilegedUser.run(List.of("cp", "-al", home.toString(), copy.toString())) != 0) {
                UnprivilegedUser.require(
                        UnprivilegedUser.run(List.of("cp", "-a", home.toString(), copy.toString())),
                        "copying " + home + " to " + copy);
            }
            Path plugin = Files.createDirectories(copy.resolve("plugins").resolve(PLUGIN));
            buildJar(javaHome, copy.resolve("lib"), staging.resolve("classes"), plugin.resolve(PLUGIN + ".jar"));
            Files.writeString(
                    plugin.resolve("plugin-descriptor.properties"),
                    String.join(
                            "\n",
                            "description=kes-stack: the analysis components of the .security index's email analyzer (see kes-stack SecurityAnalysisShim)",
                            "version=" + version,
                            "name=" + PLUGIN,
                            "classname=io.kes.stack.shim.KesSecurityAnalysisShim",
                            "java.version=17",
                            "elasticsearch.version=" + version,
                            ""));
            if (Files.exists(target)) {
                UnprivilegedUser.require(
                        UnprivilegedUser.run(List.of("rm", "-rf", target.toString())), "removing " + target);
            }
            Files.move(copy, target, StandardCopyOption.ATOMIC_MOVE);
            UnprivilegedUser.run(List.of("rm", "-rf", staging.toString()));
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("could not add the security analysis plugin to a copy of " + home, e);
        }
    }

    /** With the node's own JDK: Elasticsearch 9's jars are Java 21 classes, which an older javac cannot read. */
    private static void buildJar(Path javaHome, Path lib, Path classes, Path jar) throws IOException {
        Path javac = javaHome.resolve("bin/javac");
        if (!Files.isExecutable(javac)) {
            throw new IllegalStateException("a secured Elasticsearch node needs a JDK with javac at " + javac
                    + " to build its analysis plugin; point ES_JAVA_HOME at a JDK, not a JRE");
        }
        Path src = Files.createDirectories(classes.resolveSibling("src/io/kes/stack/shim"))
                .resolve("KesSecurityAnalysisShim.java");
        try (InputStream in = SecurityAnalysisShim.class.getResourceAsStream(SOURCE)) {
            Files.copy(in, src, StandardCopyOption.REPLACE_EXISTING);
        }
        Files.createDirectories(classes);
        List<String> cp = new ArrayList<>();
        try (Stream<Path> jars = Files.list(lib)) {
            jars.filter(p -> p.toString().endsWith(".jar")).forEach(p -> cp.add(p.toString()));
        }
        Process p = new ProcessBuilder(
                        javac.toString(),
                        "-J-XX:TieredStopAtLevel=1",
                        "-J-XX:+UseSerialGC",
                        "-proc:none",
                        "-nowarn",
                        "-cp",
                        String.join(":", cp),
                        "-d",
                        classes.toString(),
                        src.toString())
                .redirectErrorStream(true)
                .start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (p.waitFor() != 0) {
                throw new IllegalStateException(
                        "compiling the security analysis plugin against " + lib + " failed:\n" + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while compiling the security analysis plugin", e);
        }
        try (OutputStream out = Files.newOutputStream(jar);
                JarOutputStream jarOut = new JarOutputStream(out);
                Stream<Path> files = Files.walk(classes)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                jarOut.putNextEntry(
                        new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                Files.copy(f, jarOut);
                jarOut.closeEntry();
            }
        }
    }
}
