package io.kes.jobs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.junit.jupiter.api.Test;

/** The size of bin/kes run's network buffers. */
class NetworkBuffersTest {

    private static Configuration chosen(Configuration flink, int parallelism) {
        NetworkBuffers.choose(flink, parallelism);
        return flink;
    }

    @Test
    void eightWritersGetLargerBuffersFromTheDefaultNetworkMemory() {
        assertThat(chosen(new Configuration(), 8).get(TaskManagerOptions.MEMORY_SEGMENT_SIZE))
                .isEqualTo(NetworkBuffers.KEYED_EXCHANGE_SEGMENT);
    }

    @Test
    void whereLargerBuffersWouldNotAllFitFlinksOwnSizeStays() {
        // 12 routers and writers need 552 buffers; 64 MB makes 512 of 128 KB
        assertThat(NetworkBuffers.keyedExchangeBuffers(12)).isEqualTo(552);
        assertThat(chosen(new Configuration(), 12).contains(TaskManagerOptions.MEMORY_SEGMENT_SIZE))
                .isFalse();
    }

    @Test
    void configuredNetworkMemoryCountsAndTheSmallerBoundDecides() {
        Configuration flink = new Configuration();
        flink.set(TaskManagerOptions.NETWORK_MEMORY_MIN, MemorySize.parse("256mb"));
        flink.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.parse("512mb"));
        assertThat(chosen(flink, 16).get(TaskManagerOptions.MEMORY_SEGMENT_SIZE))
                .as("16 writers need 1,200 buffers; 256 MB makes 2,048")
                .isEqualTo(NetworkBuffers.KEYED_EXCHANGE_SEGMENT);

        Configuration small = new Configuration();
        small.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.parse("16mb"));
        assertThat(chosen(small, 8).contains(TaskManagerOptions.MEMORY_SEGMENT_SIZE))
                .isFalse();
    }

    @Test
    void aSizeTheConfigurationNamesIsKept() {
        Configuration flink = new Configuration();
        flink.set(TaskManagerOptions.MEMORY_SEGMENT_SIZE, MemorySize.parse("64kb"));
        assertThat(chosen(flink, 8).get(TaskManagerOptions.MEMORY_SEGMENT_SIZE)).isEqualTo(MemorySize.parse("64kb"));
    }
}
