package io.kes.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class CpuOwnersTest {

    @Test
    void aLibraryFrameCountsForTheOwnerThatCalledIt() {
        assertThat(
                        CpuOwners.of(
                                List.of(
                                        "[task tid=1];java/lang/Thread.run;io/kes/connector/bulk/BulkResponse.parse;com/fasterxml/jackson/core/JsonParser.next 5",
                                        "[rest tid=2];org/apache/flink/runtime/rest/Handler.handle;com/fasterxml/jackson/Writer.write 3",
                                        "[fetch tid=3];org/apache/kafka/clients/Fetcher.fetch;com/github/luben/zstd/Zstd.decompress;ZSTD_decompress 7")))
                .containsEntry("kes", 5L)
                .containsEntry("Flink runtime", 3L)
                .containsEntry("Kafka client", 7L);
    }

    @Test
    void theJitAndTheCollectorAreOwnersOfTheirOwnAndFramesOfNoOwnerAreOther() {
        assertThat(CpuOwners.of(List.of(
                        "[C1 CompilerThread0 tid=4];Compile::Compile 11",
                        "[GC Thread#0 tid=5];G1ParTask 2",
                        "[G1 Conc#0 tid=6];ConcurrentMark 1",
                        "[Signal Dispatcher tid=7];java/lang/Object.wait;futex_[k] 4")))
                .containsEntry(CpuOwners.JIT, 11L)
                .containsEntry(CpuOwners.GC, 3L)
                .containsEntry(CpuOwners.OTHER, 4L);
    }

    @Test
    void kesInsideFlinksStackIsKesAndFlinkAroundKesStaysFlinkOnlyAboveIt() {
        assertThat(
                        CpuOwners.of(
                                List.of(
                                        "[task tid=1];org/apache/flink/streaming/runtime/tasks/StreamTask.invoke;io/kes/connector/bulk/BulkWriter.write;java/util/HashMap.get 2",
                                        "[task tid=1];io/kes/connector/exchange/SlotRouter.processElement;org/apache/flink/runtime/io/network/api/writer/RecordWriter.emit 6")))
                .containsEntry("kes", 2L)
                .containsEntry("Flink runtime", 6L);
    }
}
