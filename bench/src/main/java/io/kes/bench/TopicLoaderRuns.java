package io.kes.bench;

import io.kes.connector.routing.IndexRouting;
import io.kes.stack.Http;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs of the topic-reading loader ({@link TopicLoader}) as a process of its own, timed and its CPU
 * read as kes's {@code bin/kes run} is ({@link ProcessClock}). Its JVM gets what {@code bin/kes run}
 * gives kes's: the same heap and the JIT stopped at C1, so the two differ by the code they run, not
 * by their JVMs. Its class path is the bench's own (kafka-clients and the connector's id and routing
 * classes are on it).
 */
final class TopicLoaderRuns {

    private final BenchOptions options;
    private final BenchTopic topic;
    private final Http es;
    private final String esUrl;
    private final ClientCpu clientCpu;

    TopicLoaderRuns(BenchOptions options, BenchTopic topic, Http es, String esUrl, ClientCpu clientCpu) {
        this.options = options;
        this.topic = topic;
        this.es = es;
        this.esUrl = esUrl;
        this.clientCpu = clientCpu;
    }

    /**
     * Loads the whole topic into {@code index} (created by the caller, routing as {@code routing}) until
     * the process exits; with {@code durableEnd} it refreshes and flushes the index before it exits.
     */
    ProcessClock.Result run(String index, IndexRouting routing, String heap, boolean durableEnd) throws Exception {
        Path dir = options.work.resolve("topic-loader-" + index).toAbsolutePath();
        Files.createDirectories(dir);
        Path console = dir.resolve("console.txt");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + heap,
                "-XX:TieredStopAtLevel=1", // the JIT and GC regions bin/kes run gives kes (bin/kes, java_cmd)
                "-XX:G1HeapRegionSize=4m",
                "-cp",
                System.getProperty("java.class.path"),
                TopicLoader.class.getName(),
                "--bootstrap",
                topic.bootstrap(),
                "--topic",
                topic.name(),
                "--index",
                index,
                "--nodes",
                esUrl,
                "--threads",
                Integer.toString(options.loaderThreads),
                "--docs-per-bulk",
                Integer.toString(Bench.DOCS_PER_BULK),
                "--shards",
                Integer.toString(routing.numberOfShards()),
                "--routing-num-shards",
                Integer.toString(routing.routingNumShards()),
                "--routing-partition-size",
                Integer.toString(routing.routingPartitionSize()),
                "--routing-function",
                routing.function().name(),
                "--durable-end",
                Boolean.toString(durableEnd)));
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(console.toFile());
        long docs = topic.docsFrom(new long[options.partitions]);
        // it holds at most one body per shard and two per sender thread (TopicLoader.Senders)
        long holdsAtMost = (long) (routing.numberOfShards() + 2 * options.loaderThreads) * Bench.DOCS_PER_BULK;
        ProcessClock.Result timed = ProcessClock.time(
                builder,
                es,
                index,
                docs,
                clientCpu,
                20,
                "the topic loader (console: " + console + ")",
                () -> docs - holdsAtMost);
        if (timed.exitCode() != 0) {
            throw new IllegalStateException("the topic loader exited with " + timed.exitCode() + ": "
                    + KesProcessRuns.printedTail(dir, 20) + "\n(console: " + console + ")");
        }
        return timed;
    }
}
