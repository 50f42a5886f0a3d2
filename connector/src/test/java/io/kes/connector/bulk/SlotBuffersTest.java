package io.kes.connector.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.DocumentOperation;
import io.kes.connector.routing.IndexLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SlotBuffersTest {

    private static final int SHARDS = 96;
    private final IndexLayout layout = IndexLayout.of("logs", "u", filled(SHARDS), null);

    private static long[] filled(int n) {
        long[] terms = new long[n];
        java.util.Arrays.fill(terms, 1);
        return terms;
    }

    private static DocumentOperation doc(int i) {
        return DocumentOperation.index("logs", "d" + i, "{\"message\":\"" + "x".repeat(500) + "\"}");
    }

    @Test
    void theBuffersTogetherNeverHoldMoreHeapThanMaxBufferedBytesPlusOneDocument() throws Exception {
        long max = 2 * 1024 * 1024;
        SlotBuffers buffers = new SlotBuffers(true, 1_000, 1024 * 1024, max, () -> 0L);
        List<BulkBody> sent = new ArrayList<>();
        long peak = 0;
        for (int i = 0; i < 50_000; i++) {
            taken(buffers.add(doc(i), layout.shard(i % SHARDS)), sent);
            peak = Math.max(peak, buffers.bufferedBytes());
        }
        assertThat(peak).as("peak buffered heap").isLessThanOrEqualTo(max + 2_000);
        assertThat(sent).as("bulks sent before they were full").isNotEmpty();
        long docs = sent.stream().mapToLong(BulkBody::itemCount).sum() + buffers.bufferedDocs();
        assertThat(docs).isEqualTo(50_000);
    }

    @Test
    void underTheBoundBuffersLeaveOnlyWhenFull() throws Exception {
        SlotBuffers buffers = new SlotBuffers(true, 100, 1024 * 1024, 64L * 1024 * 1024, () -> 0L);
        List<BulkBody> sent = new ArrayList<>();
        for (int i = 0; i < 100 * SHARDS; i++) {
            taken(buffers.add(doc(i), layout.shard(i % SHARDS)), sent);
        }
        assertThat(sent).hasSize(SHARDS).allMatch(body -> body.itemCount() == 100);
    }

    @Test
    void aFullBodyAfterOnesSentPartFullStartsBigEnoughNotToGrow() throws Exception {
        SlotBuffers buffers = new SlotBuffers(true, 1_000, 1024 * 1024, 64L * 1024 * 1024, () -> 0L);
        List<BulkBody> sent = new ArrayList<>();
        int n = 0;
        for (int docs : new int[] {1_000, 300, 200, 1_000}) { // full, part full twice (its node had room), full
            for (int i = 0; i < docs; i++) {
                taken(buffers.add(doc(n++), layout.shard(0)), sent);
            }
            buffers.takeAll().forEach(leaving -> sent.add(leaving.body()));
        }
        assertThat(sent).extracting(BulkBody::itemCount).containsExactly(1_000, 300, 200, 1_000);
        BulkBody full = sent.get(3);
        assertThat(full.array().length)
                .as("the last body's array: as big as it started, not doubled while it filled")
                .isLessThan(full.sizeInBytes() * 5 / 4);
    }

    @Test
    void aBodysHeapCountsTheOperationsItKeepsBesidesItsBytes() {
        BulkBody body = new BulkBody(256);
        for (int i = 0; i < 100; i++) {
            body.add(doc(i), layout.shard(0));
        }
        assertThat(body.heapBytes()).as("array + kept operations").isGreaterThan(body.array().length + 100L * 64);
    }

    private static void taken(SlotBuffers.Added added, List<BulkBody> sent) {
        added.leaving.forEach(leaving -> sent.add(leaving.body()));
    }
}
