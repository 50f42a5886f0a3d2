package io.kes.jobs.cli;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;

/**
 * The size of bin/kes run's network buffers: 128 KB instead of Flink's 32 KB where the
 * MiniCluster's network memory holds what the keyed exchange (routers to writers) needs at that
 * size, else Flink's own; a size in the Flink configuration is left alone.
 *
 * <p>Why: in the keyed job the writers are most of the time behind the one Elasticsearch node
 * (backpressure), so each network buffer a writer frees wakes its router's task thread, and each
 * buffer the router fills wakes the writer: at 48 shards, 8 writers, futex wake-ups were 8% of the
 * job's CPU and the task threads' mailbox and buffer-availability code 10%. A buffer four times
 * larger carries four times the documents per hand-over. Measured (1,000,000 records, 48 shards,
 * p=8, eight and seven runs, alternated): steady client CPU 9.3-11.1 s/M against 10.2-11.6, 0.7 s/M
 * less on average, less in 6 of the 7 rounds (docs/benchmark.md, "Network buffers of 128 KB").
 * The MiniCluster allocates its network memory (64 MB unless configured) whole at start; the size
 * changes how many buffers it makes of it, not how much it takes.
 */
final class NetworkBuffers {

    static final MemorySize KEYED_EXCHANGE_SEGMENT = MemorySize.parse("128kb");

    /** Flink's network memory for local execution when none is configured ({@code TaskExecutorResourceUtils}). */
    private static final MemorySize LOCAL_NETWORK_MEMORY = MemorySize.parse("64mb");

    /** An input channel's exclusive buffers and an input gate's floating ones: fixed in Flink 2 ({@code NettyShuffleEnvironmentConfiguration}). */
    private static final long BUFFERS_PER_CHANNEL = 2;

    private static final long FLOATING_BUFFERS_PER_GATE = 8;

    private NetworkBuffers() {}

    /** Sets {@code flink}'s segment size for a job of {@code parallelism} writers, unless it names one. */
    static void choose(Configuration flink, int parallelism) {
        if (flink.contains(TaskManagerOptions.MEMORY_SEGMENT_SIZE)) {
            return;
        }
        long buffers = networkMemory(flink).getBytes() / KEYED_EXCHANGE_SEGMENT.getBytes();
        if (keyedExchangeBuffers(parallelism) <= buffers) {
            flink.set(TaskManagerOptions.MEMORY_SEGMENT_SIZE, KEYED_EXCHANGE_SEGMENT);
        }
    }

    /**
     * The buffers Flink gives the keyed exchange of {@code p} routers and {@code p} writers in one
     * TaskManager: each writer's input gate its exclusive buffers per channel, one more and its
     * floating ones; each router's output one per writer and one more. Without the floating
     * buffers the job would start, slower; without the rest it would not start at all.
     */
    static long keyedExchangeBuffers(int p) {
        long writersInputs = p * (BUFFERS_PER_CHANNEL * p + 1 + FLOATING_BUFFERS_PER_GATE);
        long routersOutputs = (long) p * (p + 1);
        return writersInputs + routersOutputs;
    }

    /** The network memory a MiniCluster gets: the smaller of the configured bounds, else Flink's local default. */
    private static MemorySize networkMemory(Configuration flink) {
        MemorySize min =
                flink.getOptional(TaskManagerOptions.NETWORK_MEMORY_MIN).orElse(null);
        MemorySize max =
                flink.getOptional(TaskManagerOptions.NETWORK_MEMORY_MAX).orElse(null);
        if (min != null && max != null) {
            return min.compareTo(max) <= 0 ? min : max;
        }
        return min != null ? min : max != null ? max : LOCAL_NETWORK_MEMORY;
    }
}
