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
import java.util.Comparator;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Small Elasticsearch plugins standing in for parts of modules that the integ-test-zip (the only
 * Elasticsearch distribution on Maven Central) leaves out. This makes, once per version and set of
 * plugins, a copy of the distribution (hard links: no space, no time) under the run folder, with
 * each plugin compiled here, with the node's own JDK, from a source kept as a resource
 * ({@code /plugin-shims/<class>.java.txt}) against the distribution's own jars.
 */
final class PluginShims {

    /**
     * One plugin: a single class {@code io.kes.stack.shim.<className>}, whose source is the
     * resource {@code /plugin-shims/<className>.java.txt}, also registered in the jar's
     * {@code META-INF/services/<service>} for each of {@code services} (interfaces Elasticsearch
     * loads with a ServiceLoader, not through the plugin class).
     */
    record Shim(String name, String className, String description, List<String> services) {

        String qualifiedClassName() {
            return "io.kes.stack.shim." + className;
        }
    }

    /** The analysis components of the .security index's "email" analyzer (analysis-common module): secured nodes. */
    static final Shim SECURITY_ANALYSIS = new Shim(
            "kes-security-analysis",
            "KesSecurityAnalysisShim",
            "the analysis components of the .security index's email analyzer (analysis-common)",
            List.of());

    /** The failure store's cluster feature (data-streams module) and match_only_text (mapper-extras): 9.1+. */
    static final Shim FAILURE_STORE = new Shim(
            "kes-failure-store",
            "KesFailureStoreShim",
            "the failure store's cluster feature (data-streams) and match_only_text (mapper-extras)",
            List.of("org.elasticsearch.features.FeatureSpecification"));

    private PluginShims() {}

    /**
     * The distribution at {@code home} plus {@code shims}: a home under {@code runDir}, made on
     * first use and named by version and plugins (so nodes of one version with other plugins do not
     * share it); {@code home} itself when there are none.
     */
    static synchronized Path homeWith(List<Shim> shims, Path home, String version, Path runDir, Path javaHome) {
        if (shims.isEmpty()) {
            return home;
        }
        List<Shim> sorted =
                shims.stream().sorted(Comparator.comparing(Shim::name)).toList();
        Path target = runDir.resolve(
                "es-home-" + version + "-" + sorted.stream().map(Shim::name).collect(Collectors.joining("+")));
        if (sorted.stream().allMatch(s -> Files.exists(descriptor(target, s)))) {
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
            for (Shim shim : sorted) {
                install(shim, copy, version, staging.resolve(shim.name()), javaHome);
            }
            if (Files.exists(target)) {
                UnprivilegedUser.require(
                        UnprivilegedUser.run(List.of("rm", "-rf", target.toString())), "removing " + target);
            }
            Files.move(copy, target, StandardCopyOption.ATOMIC_MOVE);
            UnprivilegedUser.run(List.of("rm", "-rf", staging.toString()));
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("could not add the plugins " + sorted + " to a copy of " + home, e);
        }
    }

    private static Path descriptor(Path home, Shim shim) {
        return home.resolve("plugins").resolve(shim.name()).resolve("plugin-descriptor.properties");
    }

    /** Compiles {@code shim} in {@code work} and puts its jar and descriptor into {@code home}'s plugins folder. */
    private static void install(Shim shim, Path home, String version, Path work, Path javaHome) throws IOException {
        Path plugin = Files.createDirectories(home.resolve("plugins").resolve(shim.name()));
        Path classes = Files.createDirectories(work.resolve("classes"));
        compile(shim, javaHome, home.resolve("lib"), work.resolve("src"), classes);
        for (String service : shim.services()) {
            Path file = Files.createDirectories(classes.resolve("META-INF/services"))
                    .resolve(service);
            Files.writeString(file, shim.qualifiedClassName() + "\n");
        }
        jar(classes, plugin.resolve(shim.name() + ".jar"));
        Files.writeString(
                descriptor(home, shim),
                String.join(
                        "\n",
                        "description=kes-stack: " + shim.description() + " (see kes-stack PluginShims)",
                        "version=" + version,
                        "name=" + shim.name(),
                        "classname=" + shim.qualifiedClassName(),
                        "java.version=17",
                        "elasticsearch.version=" + version,
                        ""));
    }

    /** With the node's own JDK: Elasticsearch 9's jars are Java 21 classes, which an older javac cannot read. */
    private static void compile(Shim shim, Path javaHome, Path lib, Path srcRoot, Path classes) throws IOException {
        Path javac = javaHome.resolve("bin/javac");
        if (!Files.isExecutable(javac)) {
            throw new IllegalStateException("an Elasticsearch node of this version needs a JDK with javac at " + javac
                    + " to build its plugin " + shim.name() + "; point ES_JAVA_HOME at a JDK, not a JRE");
        }
        Path src = Files.createDirectories(srcRoot.resolve("io/kes/stack/shim")).resolve(shim.className() + ".java");
        String resource = "/plugin-shims/" + shim.className() + ".java.txt";
        try (InputStream in = PluginShims.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("the source of " + shim.name() + " is missing: " + resource);
            }
            Files.copy(in, src, StandardCopyOption.REPLACE_EXISTING);
        }
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
                        "compiling the plugin " + shim.name() + " against " + lib + " failed:\n" + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while compiling the plugin " + shim.name(), e);
        }
    }

    private static void jar(Path classes, Path jar) throws IOException {
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
