package io.kes.bench;

import com.sun.tools.attach.VirtualMachine;
import io.kes.stack.ElasticsearchNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import one.profiler.AsyncProfiler;

/**
 * Where the Elasticsearch node's CPU goes in each measured single-node run: async-profiler loaded
 * into the node's server JVM (JDK attach API; the node runs as another user, which root may attach
 * to), sampling every thread from just before the run to just after, its samples sorted into the
 * node's stages (parse the bulk, parse the document, index into Lucene, flush segments, translog,
 * HTTP, response, GC, JIT). Per mode, the median over rounds in CPU seconds per million documents.
 *
 * <p>Why: the node's CPU per document decides docs/s on this machine, and it differs between modes
 * by more than what the modes ask differently of it. The table separates the stages whose cost a
 * client's requests decide (bulk parse, shard-level bulk overhead, HTTP, response) from those that
 * only the documents decide (Lucene, document parsing, flush), which all modes send alike.
 */
final class NodeProfiler {

    /** First match from the top wins: a merge thread's stack never also counts as indexing. */
    static final Map<String, Pattern> STAGES = new LinkedHashMap<>();

    static {
        stage("Lucene merges", "MergeScheduler|SegmentMerger|IndexWriter\\.merge");
        stage(
                "segment flush (indexing buffer full)",
                "DocumentsWriterPerThread\\.flush|DocumentsWriter\\.(flush|doFlush)|IndexWriter\\.(flush|getReader)|flushAllThreads|Refresh");
        stage("GC", "^\\[?(G1|GC )|G1[A-Z][A-Za-z]+::|GCTaskThread|ConcurrentGCThread");
        stage("JIT compiler", "CompileBroker|C2Compiler|C1Compiler");
        stage("bulk request parse (action lines)", "BulkRequestParser");
        stage(
                "Lucene: index the document",
                "IndexWriter\\.(addDocument|updateDocument|softUpdateDocument|updateDocuments|softUpdateDocuments|addDocuments)");
        stage(
                "document parse and mapping",
                "DocumentParser|SourceToParse|DocumentMapper\\.parse|MapperService\\.parse");
        stage(
                "id and version lookup",
                "VersionsAndSeqNoResolver|PerThreadIDVersionAndSeqNoLookup|LiveVersionMap|resolveDocVersion");
        stage("translog", "translog\\.Translog|TranslogWriter");
        stage("shard bulk: the rest", "TransportShardBulkAction");
        stage(
                "bulk response",
                "BulkResponse\\.toXContent|BulkItemResponse|RestToXContentListener|ChunkedRestResponseBody|FilterPath");
        stage("bulk coordination (split by shard)", "TransportBulkAction|BulkOperation");
        stage("HTTP (Netty)", "netty|Netty4");
        stage(
                "other REST calls (stats, metadata)",
                "RestController|TransportNodesAction|IndicesStats|TransportBroadcast");
    }

    private static void stage(String name, String regex) {
        STAGES.put(name, Pattern.compile(regex));
    }

    static final String OTHER = "anything else";
    private static final int INTERVAL_MS = 5;

    private final long serverPid;
    private final Path library;
    private final Path dir;
    /** mode → one entry per profiled run: stage → CPU seconds per million documents. */
    private final Map<String, List<Map<String, Double>>> byMode = new LinkedHashMap<>();

    private final List<String> problems = new ArrayList<>();
    /** mode → what Lucene did to each profiled run's index. */
    private final Map<String, List<EsStats.IndexWork>> indexWork = new LinkedHashMap<>();

    private String running;

    private NodeProfiler(long serverPid, Path library, Path dir) {
        this.serverPid = serverPid;
        this.library = library;
        this.dir = dir;
    }

    /**
     * A profiler for {@code node}'s server JVM, or empty (with the reason on stdout) where it cannot
     * be had: no such JVM found, no async-profiler library for this platform.
     */
    static Optional<NodeProfiler> of(ElasticsearchNode node, Path work) {
        try {
            long launcher = node.process().orElseThrow().pid();
            Optional<ProcessHandle> server = ProcessHandle.of(launcher).stream()
                    .flatMap(p -> Stream.concat(Stream.of(p), p.descendants()))
                    .filter(p -> p.info()
                            .commandLine()
                            .map(c -> c.contains("org.elasticsearch.bootstrap.Elasticsearch"))
                            .orElse(false))
                    .findFirst();
            if (server.isEmpty()) {
                System.out.println(
                        "  [node profile] no Elasticsearch server JVM under pid " + launcher + ": not profiled");
                return Optional.empty();
            }
            // The node runs as an unprivileged user: it must read the library and write its output here.
            Path dir = Files.createDirectories(work.resolve("node-profile").toAbsolutePath());
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
            Path library = dir.resolve("libasyncProfiler.so");
            try (InputStream in = AsyncProfiler.class.getResourceAsStream("/linux-x64/libasyncProfiler.so")) {
                if (in == null) {
                    System.out.println(
                            "  [node profile] the async-profiler jar has no linux-x64 library: not profiled");
                    return Optional.empty();
                }
                Files.copy(in, library, StandardCopyOption.REPLACE_EXISTING);
            }
            Files.setPosixFilePermissions(library, PosixFilePermissions.fromString("rwxr-xr-x"));
            return Optional.of(new NodeProfiler(server.get().pid(), library, dir));
        } catch (IOException | RuntimeException e) {
            System.out.println("  [node profile] cannot prepare (" + e + "): not profiled");
            return Optional.empty();
        }
    }

    /** Starts sampling the node for the run of {@code mode} about to start. */
    void start(String mode) {
        running = null;
        try {
            command("start,event=cpu,interval=" + INTERVAL_MS + "ms");
        } catch (Exception perfEventsRefused) {
            try {
                command("start,event=itimer,interval=" + INTERVAL_MS + "ms");
            } catch (Exception e) {
                problems.add(mode + ": " + e);
                return;
            }
        }
        running = mode;
    }

    /** Stops sampling and files the run's samples under its mode, per million of {@code docs} (0: a failed run, dropped). */
    void stop(long docs) {
        if (running == null) {
            return;
        }
        String mode = running;
        running = null;
        try {
            Path out = dir.resolve(
                    mode + "-" + (byMode.getOrDefault(mode, List.of()).size() + 1) + ".collapsed");
            command("stop,file=" + out + ",collapsed");
            if (docs <= 0) {
                return; // the run failed: nothing to divide by
            }
            Map<String, Double> perMillion = new LinkedHashMap<>();
            byStage(Files.readAllLines(out))
                    .forEach((stage, samples) -> perMillion.put(stage, samples * INTERVAL_MS / 1000.0 / (docs / 1e6)));
            byMode.computeIfAbsent(mode, m -> new ArrayList<>()).add(perMillion);
        } catch (Exception e) {
            problems.add(mode + ": " + e);
        }
    }

    /** Files what Lucene did to the index of the run just profiled (commits, merges, segments). */
    void indexWork(String mode, EsStats.IndexWork work) {
        indexWork.computeIfAbsent(mode, m -> new ArrayList<>()).add(work);
    }

    /** Samples per stage (and {@link #OTHER}) of async-profiler's collapsed stacks, {@code root;...;leaf count} per line. */
    static Map<String, Long> byStage(List<String> collapsedLines) {
        Map<String, Long> samples = new LinkedHashMap<>();
        STAGES.keySet().forEach(stage -> samples.put(stage, 0L));
        samples.put(OTHER, 0L);
        for (String line : collapsedLines) {
            int space = line.lastIndexOf(' ');
            if (space < 0 || !line.substring(space + 1).matches("\\d+")) {
                continue;
            }
            String stack = line.substring(0, space);
            long n = Long.parseLong(line.substring(space + 1));
            String stage = STAGES.entrySet().stream()
                    .filter(e -> e.getValue().matcher(stack).find())
                    .map(Map.Entry::getKey)
                    .findFirst()
                    .orElse(OTHER);
            samples.merge(stage, n, Long::sum);
        }
        return samples;
    }

    /**
     * The markdown table: a row per stage, a column per mode, each cell the median over that mode's
     * profiled runs of CPU seconds per million documents; null when nothing was profiled.
     */
    String summary() {
        if (byMode.isEmpty()) {
            return problems.isEmpty() ? null : "The node could not be profiled: " + String.join("; ", problems) + "\n";
        }
        List<String> modes = new ArrayList<>(byMode.keySet());
        StringBuilder md = new StringBuilder("| stage of the node (CPU s / M docs, median of the runs) |");
        modes.forEach(m -> md.append(' ').append(m).append(" |"));
        md.append("\n|---|").append("---:|".repeat(modes.size())).append('\n');
        List<String> rows = new ArrayList<>(STAGES.keySet());
        rows.add(OTHER);
        rows.add("total");
        for (String stage : rows) {
            md.append("| ").append(stage.equals("total") ? "**total**" : stage).append(" |");
            for (String mode : modes) {
                double[] values = byMode.get(mode).stream()
                        .mapToDouble(run -> stage.equals("total")
                                ? run.values().stream()
                                        .mapToDouble(Double::doubleValue)
                                        .sum()
                                : run.get(stage))
                        .toArray();
                md.append(String.format(" %.1f |", Stats.median(values)));
            }
            md.append('\n');
        }
        md.append(String.format(
                "%nasync-profiler in the node's server JVM, every thread, %d ms samples, from just before each measured"
                        + " run to just after it (index creation, refresh and count included, as in the ES CPU column); runs per mode: %s.%s%n",
                INTERVAL_MS,
                byMode.entrySet().stream()
                        .map(e -> e.getKey() + " " + e.getValue().size())
                        .toList(),
                problems.isEmpty() ? "" : " Not profiled: " + String.join("; ", problems) + "."));
        if (!indexWork.isEmpty()) {
            md.append(
                    "\nWhat Lucene did to each run's index (`_stats` at the run's end; a commit is a flush, the fence's `_flush` included):\n\n");
            indexWork.forEach((mode, runs) -> md.append("- ")
                    .append(mode)
                    .append(": ")
                    .append(String.join(
                            "; ", runs.stream().map(EsStats.IndexWork::toString).toList()))
                    .append('\n'));
        }
        return md.toString();
    }

    private void command(String command) throws Exception {
        VirtualMachine vm = VirtualMachine.attach(Long.toString(serverPid));
        try {
            vm.loadAgentPath(library.toString(), command);
        } finally {
            vm.detach();
        }
    }
}
