package io.kes.bench;

import io.kes.stack.Http;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The machine the bench ran on, as the report's header states it (numbers mean little without it). */
final class Machine {

    private Machine() {}

    /** Cores, memory, OS, the bench JVM and Elasticsearch's version, into the report's environment lines. */
    static void describe(Http es, Map<String, String> environment) throws IOException {
        environment.put(
                "machine",
                Runtime.getRuntime().availableProcessors() + " cores (nproc), " + memTotal() + " RAM, "
                        + System.getProperty("os.name") + " " + System.getProperty("os.version"));
        environment.put(
                "bench JVM",
                System.getProperty("java.vm.name") + " " + System.getProperty("java.version") + ", -Xmx"
                        + (Runtime.getRuntime().maxMemory() >> 20) + "m");
        String root = es.get("/_nodes/_local/jvm?filter_path=nodes.*.version,nodes.*.jvm.version")
                .body();
        Matcher v = Pattern.compile("\"version\":\"([^\"]+)\",\"jvm\":\\{\"version\":\"([^\"]+)\"")
                .matcher(root);
        environment.put(
                "Elasticsearch",
                v.find() ? v.group(1) + " (integ-test-zip) on JDK " + v.group(2) + ", 1 GB heap per node" : root);
        environment.put("date", java.time.Instant.now().toString());
    }

    private static String memTotal() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/meminfo"))) {
            return lines.filter(l -> l.startsWith("MemTotal"))
                    .findFirst()
                    .map(l -> String.format("%.1f GB", Long.parseLong(l.replaceAll("\\D", "")) / 1024.0 / 1024.0))
                    .orElse("?");
        } catch (IOException e) {
            return "?";
        }
    }
}
