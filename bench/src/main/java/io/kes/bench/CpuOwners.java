package io.kes.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Whose code a process's CPU samples ran, for the question issue 39 asks of a profile: how much of
 * kes's client CPU lies in code kes does not own. Each sample goes to the innermost frame that
 * belongs to one of the owners below; the JDK's and other libraries' frames (collections, Jackson,
 * zstd, the kernel) count for the owner that called them, so Jackson parsing a bulk response is
 * kes's and Jackson serving Flink's REST API is Flink's. The JIT compiler's and the garbage
 * collector's threads are owners of their own; a sample with no owner's frame at all (a JDK thread,
 * the JVM's own threads) is "JVM and JDK, other".
 */
final class CpuOwners {

    static final String JIT = "JIT compiler threads";
    static final String GC = "GC threads";
    static final String OTHER = "JVM and JDK, other";

    /** Package prefix (collapsed-stack form) → owner, the first match wins. */
    private static final Map<String, String> OWNERS = new LinkedHashMap<>();

    static {
        OWNERS.put("io/kes/bench/", "the bench's own threads");
        OWNERS.put("io/kes/", "kes");
        OWNERS.put("org/apache/flink/shaded/netty", "Netty (in Flink)");
        OWNERS.put("org/apache/flink/shaded/", "Flink (shaded libraries)");
        OWNERS.put("org/apache/flink/", "Flink runtime");
        OWNERS.put("org/apache/pekko/", "Pekko (in Flink)");
        OWNERS.put("org/apache/kafka/", "Kafka client");
        OWNERS.put("org/elasticsearch/client/", "Elasticsearch REST client + Apache HttpAsyncClient");
        OWNERS.put("org/apache/http/", "Elasticsearch REST client + Apache HttpAsyncClient");
        OWNERS.put("io/netty/", "Netty (in Flink)");
    }

    private CpuOwners() {}

    /** Samples per owner of {@code collapsedLines} ({@code [thread tid=n];root;...;leaf count}). */
    static Map<String, Long> of(List<String> collapsedLines) {
        Map<String, Long> owners = new LinkedHashMap<>();
        for (String line : collapsedLines) {
            int space = line.lastIndexOf(' ');
            if (space < 0) {
                continue;
            }
            long n = Long.parseLong(line.substring(space + 1));
            String[] frames = line.substring(0, space).split(";");
            owners.merge(ownerOf(frames), n, Long::sum);
        }
        return owners;
    }

    private static String ownerOf(String[] frames) {
        String thread = frames[0];
        if (thread.contains("CompilerThre")) {
            return JIT;
        }
        if (thread.startsWith("[GC Thread") || thread.startsWith("[G1 ")) {
            return GC;
        }
        for (int i = frames.length - 1; i > 0; i--) {
            for (Map.Entry<String, String> owner : OWNERS.entrySet()) {
                if (frames[i].startsWith(owner.getKey())) {
                    return owner.getValue();
                }
            }
        }
        return OTHER;
    }
}
