package io.kes.stack;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Finds a JDK for a server that needs a newer Java than the build (Elasticsearch 9 needs 21+ and
 * the integ-test-zip ships none). Looks at ES_JAVA_HOME, JAVA_HOME, the running JVM, then
 * /usr/lib/jvm/*, and takes the newest that is new enough (and, where a server line does not
 * support the newest JDKs, old enough).
 */
public final class JavaHomes {

    private static final Pattern VERSION = Pattern.compile("^JAVA_VERSION=\"(\\d+)", Pattern.MULTILINE);

    private JavaHomes() {}

    public static Optional<Path> find(int minimumFeatureVersion) {
        return find(minimumFeatureVersion, Integer.MAX_VALUE);
    }

    /** The newest JDK whose feature version is within [minimum, maximum]. */
    public static Optional<Path> find(int minimumFeatureVersion, int maximumFeatureVersion) {
        List<Path> candidates = new ArrayList<>();
        for (String env : List.of("ES_JAVA_HOME", "JAVA_HOME")) {
            String value = System.getenv(env);
            if (value != null && !value.isBlank()) {
                candidates.add(Path.of(value));
            }
        }
        candidates.add(Path.of(System.getProperty("java.home")));
        Path jvms = Path.of("/usr/lib/jvm");
        if (Files.isDirectory(jvms)) {
            try (Stream<Path> dirs = Files.list(jvms)) {
                dirs.filter(Files::isDirectory).forEach(candidates::add);
            } catch (IOException ignored) {
                // an unreadable /usr/lib/jvm just means fewer candidates
            }
        }
        return candidates.stream()
                .filter(home -> Files.isExecutable(home.resolve("bin/java")))
                .filter(home ->
                        featureVersion(home) >= minimumFeatureVersion && featureVersion(home) <= maximumFeatureVersion)
                .max(Comparator.comparingInt(JavaHomes::featureVersion));
    }

    static int featureVersion(Path home) {
        try {
            Matcher m = VERSION.matcher(Files.readString(home.resolve("release")));
            return m.find() ? Integer.parseInt(m.group(1)) : 0;
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
    }
}
