package io.kes.stack;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * The JVM flags a JVM that runs Flink needs on Java 17 ({@code --add-opens ...}), for code that
 * starts such a JVM itself. They are declared once, as {@code kes.jvm.flags} in the root pom.xml,
 * and written into {@code kes-jvm-flags.txt} at build time (one line, flags separated by spaces),
 * where bin/kes reads them too; the tests' JVMs get them from the same property.
 */
public final class JvmFlags {

    private static final String RESOURCE = "/kes-jvm-flags.txt";

    private JvmFlags() {}

    public static List<String> forFlink() {
        try (InputStream in = JvmFlags.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE.substring(1)
                        + " is missing from the classpath: build the stack module with ./mvnw -pl stack install");
            }
            String line = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
            return Arrays.stream(line.split("\\s+"))
                    .filter(flag -> !flag.isEmpty())
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
