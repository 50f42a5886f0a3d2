package io.kes.jobs.preflight;

import io.kes.jobs.config.KesConfig;

/**
 * Whether this JVM's heap holds what the job's writers may keep: parallelism x the writer's bound
 * ({@link io.kes.connector.SinkSettings#writerHeapBound}) plus the dead-letter producers' buffers
 * and what Flink and the Kafka consumers need. The writer keeps an in-flight budget per data node
 * it sends to (primary-node routing finds them behind one load balancer), so the bound counts the
 * data nodes the cluster reports, and the configured hosts only when it does not say.
 * {@code bin/kes run} runs the job in this JVM ({@code KES_HEAP}); on a Flink cluster the
 * TaskManagers' heap is what counts, which the check cannot see, so it only warns.
 */
final class MemoryCheck {

    /** Flink's own heap in a local MiniCluster and the Kafka consumers' fetch buffers, measured about this. */
    static final long OVERHEAD_BYTES = 300L << 20;

    /** The cluster did not say how many data nodes it has. */
    static final int NODES_UNKNOWN = -1;

    /** Kafka's default {@code buffer.memory}: what a producer may hold of records not yet sent. */
    private static final long PRODUCER_BUFFER_DEFAULT = 32L << 20;

    private MemoryCheck() {}

    /** @param dataNodes as the cluster reports them, or {@link #NODES_UNKNOWN} */
    static void check(PreflightReport report, KesConfig config, long maxHeapBytes, int dataNodes) {
        int parallelism = config.job.parallelism() > 0
                ? config.job.parallelism()
                : Runtime.getRuntime().availableProcessors();
        int hosts = config.sink.hosts().size();
        int nodes = Math.max(hosts, dataNodes);
        long perWriter = config.sink.writerHeapBound(nodes);
        // one producer in each decoder and one in each writer (errors.dead_letter_topic)
        int producers = config.errors.deadLetters() ? 2 * parallelism : 0;
        long perProducer = producerBuffer(config);
        long needed = parallelism * perWriter + producers * perProducer + OVERHEAD_BYTES;
        String detail = parallelism + " writer(s) x " + mb(perWriter)
                + " MB (bulk.max_buffered_bytes + bulk.max_queued_bytes + in-flight bulks per node + 4 answered bodies' arrays, "
                + (dataNodes > 0 ? dataNodes + " data node(s)" : hosts + " configured host(s)") + ") + "
                + (producers > 0 ? producers + " dead-letter producer(s) x " + mb(perProducer) + " MB + " : "")
                + mb(OVERHEAD_BYTES) + " MB for Flink = " + mb(needed) + " MB; this JVM's heap is "
                + mb(maxHeapBytes) + " MB";
        if (needed > maxHeapBytes) {
            report.warn(
                    "memory",
                    detail
                            + ": raise KES_HEAP (bin/kes run) or the TaskManagers' heap, or lower bulk.max_buffered_bytes,"
                            + " bulk.max_queued_bytes, bulk.max_in_flight or the parallelism");
        } else {
            report.ok("memory", detail);
        }
    }

    private static long producerBuffer(KesConfig config) {
        String set = config.kafka.properties().get("buffer.memory");
        try {
            return set == null ? PRODUCER_BUFFER_DEFAULT : Long.parseLong(set.trim());
        } catch (NumberFormatException e) {
            return PRODUCER_BUFFER_DEFAULT; // the producer itself refuses it, naming the property
        }
    }

    private static long mb(long bytes) {
        return bytes >> 20;
    }
}
