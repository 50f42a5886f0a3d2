package io.kes.jobs.check;

import io.kes.jobs.config.KesConfig;

/**
 * Whether this JVM's heap holds what the job's writers may keep: parallelism x the writer's bound
 * ({@link io.kes.connector.SinkSettings#writerHeapBound}) plus what Flink and the Kafka consumers
 * need. {@code bin/kes run} runs the job in this JVM ({@code KES_HEAP}); on a Flink cluster the
 * TaskManagers' heap is what counts, which the check cannot see, so it only warns.
 */
final class MemoryCheck {

    /** Flink's own heap in a local MiniCluster and the Kafka consumers' fetch buffers, measured about this. */
    static final long OVERHEAD_BYTES = 300L << 20;

    private MemoryCheck() {}

    static void check(PreflightReport report, KesConfig config, long maxHeapBytes) {
        int parallelism = config.job.parallelism() > 0
                ? config.job.parallelism()
                : Runtime.getRuntime().availableProcessors();
        long perWriter = config.sink.writerHeapBound(config.sink.hosts().size());
        long needed = parallelism * perWriter + OVERHEAD_BYTES;
        String detail = parallelism + " writer(s) x " + mb(perWriter)
                + " MB (bulk.max_buffered_bytes + bulk.max_queued_bytes + "
                + "in-flight bulks per node) + " + mb(OVERHEAD_BYTES) + " MB for Flink = " + mb(needed)
                + " MB; this JVM's heap is "
                + mb(maxHeapBytes) + " MB";
        if (needed > maxHeapBytes) {
            report.warn(
                    "memory",
                    detail
                            + ": raise KES_HEAP (bin/kes run) or the TaskManagers' heap, or lower bulk.max_buffered_bytes,"
                            + " bulk.max_queued_bytes or the parallelism");
        } else {
            report.ok("memory", detail);
        }
    }

    private static long mb(long bytes) {
        return bytes >> 20;
    }
}
