package io.kes.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.Http;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Server-side numbers of an Elasticsearch cluster: CPU time of the node processes, {@code _bulk}
 * HTTP requests, write thread pool rejections, and shard-level bulk operations of an index.
 */
final class EsStats {

    private static final ObjectMapper JSON = new ObjectMapper();
    static final long CLOCK_TICKS = clockTicks();

    /**
     * Counters at one moment; deltas between two of them describe a run.
     *
     * @param writeCompleted tasks the write thread pools completed: shard-level bulk operations and the
     *                       coordinating step of {@code _bulk} requests alike, a cross-check of both
     */
    record Snapshot(long cpuMillis, long bulkHttpRequests, long writeRejected, long writeCompleted) {
        Snapshot minus(Snapshot before) {
            return new Snapshot(
                    cpuMillis - before.cpuMillis,
                    bulkHttpRequests - before.bulkHttpRequests,
                    writeRejected - before.writeRejected,
                    writeCompleted - before.writeCompleted);
        }
    }

    private final Http http;
    /** Nodes this JVM started (CPU from /proc); empty for an external cluster (CPU from _nodes/stats). */
    private final List<ElasticsearchNode> localNodes;

    EsStats(String url, List<ElasticsearchNode> localNodes) {
        this.http = new Http(url);
        this.localNodes = localNodes;
    }

    String cpuSource() {
        return localNodes.isEmpty() ? "_nodes/stats/process cpu.total_in_millis" : "/proc/<pid>/stat utime+stime";
    }

    Snapshot snapshot() throws IOException {
        JsonNode nodes = json("/_nodes/stats/http,thread_pool,process").path("nodes");
        long bulk = 0;
        long rejected = 0;
        long completed = 0;
        long cpuFromStats = 0;
        for (Iterator<JsonNode> it = nodes.elements(); it.hasNext(); ) {
            JsonNode node = it.next();
            JsonNode routes = node.path("http").path("routes");
            for (Iterator<String> r = routes.fieldNames(); r.hasNext(); ) {
                String route = r.next();
                if (route.equals("/_bulk") || route.equals("/{index}/_bulk")) {
                    bulk += routes.path(route).path("requests").path("count").asLong();
                }
            }
            rejected += node.path("thread_pool").path("write").path("rejected").asLong();
            completed +=
                    node.path("thread_pool").path("write").path("completed").asLong();
            cpuFromStats +=
                    node.path("process").path("cpu").path("total_in_millis").asLong();
        }
        long cpu = localNodes.isEmpty() ? cpuFromStats : localCpuMillis();
        return new Snapshot(cpu, bulk, rejected, completed);
    }

    /** What Lucene did to one index so far: commits (flushes), merges and their time, segments now. */
    record IndexWork(long flushes, long periodicFlushes, long merges, long mergeMillis, long segments) {
        @Override
        public String toString() {
            return String.format(
                    "%d Lucene commits (%d by the node's own translog size or age, %d asked for by _flush), %d merges (%.1f s),"
                            + " %d segments",
                    flushes, periodicFlushes, flushes - periodicFlushes, merges, mergeMillis / 1000.0, segments);
        }
    }

    IndexWork indexWork(String index) throws IOException {
        JsonNode p =
                json("/" + index + "/_stats/flush,merge,segments").path("_all").path("primaries");
        return new IndexWork(
                p.path("flush").path("total").asLong(),
                p.path("flush").path("periodic").asLong(),
                p.path("merges").path("total").asLong(),
                p.path("merges").path("total_time_in_millis").asLong(),
                p.path("segments").path("count").asLong());
    }

    /** Shard-level bulk operations on the primaries of {@code index} (1 per single-shard bulk). */
    long shardBulkOperations(String index) throws IOException {
        return json("/" + index + "/_stats/bulk")
                .path("_all")
                .path("primaries")
                .path("bulk")
                .path("total_operations")
                .asLong();
    }

    private JsonNode json(String path) throws IOException {
        return JSON.readTree(http.get(path).requireOk("GET " + path).body());
    }

    /**
     * utime + stime of every process in each node's tree (the launcher shell, the CLI JVM, the server
     * JVM): from /proc, so it answers while a node is stopped, as {@code _nodes/stats} does not.
     */
    long localCpuMillis() {
        long millis = 0;
        for (ElasticsearchNode node : localNodes) {
            millis += treeCpuMillis(node.process().orElseThrow().pid());
        }
        return millis;
    }

    /** utime + stime of one process (not its children), in milliseconds. */
    static long cpuMillis(long pid) {
        return cpuTicks(pid) * 1000 / CLOCK_TICKS;
    }

    /** utime + stime of a process and its descendants, in milliseconds. */
    static long treeCpuMillis(long root) {
        List<Long> pids = new ArrayList<>();
        pids.add(root);
        ProcessHandle.of(root).ifPresent(h -> h.descendants().forEach(d -> pids.add(d.pid())));
        long ticks = 0;
        for (long pid : pids) {
            ticks += cpuTicks(pid);
        }
        return ticks * 1000 / CLOCK_TICKS;
    }

    /** Fields 14 and 15 of /proc/<pid>/stat (after the parenthesised command, which may hold spaces). */
    static long cpuTicks(long pid) {
        return cpuTicks(Path.of("/proc/" + pid));
    }

    /** utime + stime from the {@code stat} file of a /proc process or thread directory; 0 when it is gone. */
    static long cpuTicks(Path procDir) {
        try {
            String stat = Files.readString(procDir.resolve("stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // f[0] is field 3 (state); utime is field 14, stime field 15
            return Long.parseLong(f[11]) + Long.parseLong(f[12]);
        } catch (IOException | RuntimeException gone) {
            return 0;
        }
    }

    private static long clockTicks() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK")
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            p.waitFor();
            return Long.parseLong(out);
        } catch (Exception e) {
            return 100;
        }
    }
}
