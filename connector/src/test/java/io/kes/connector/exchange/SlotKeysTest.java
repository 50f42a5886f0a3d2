package io.kes.connector.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.DocumentOperation;
import io.kes.connector.routing.IndexLayout;
import io.kes.connector.routing.IndexRouting;
import io.kes.connector.routing.PredictedShard;
import io.kes.connector.routing.RoutingFunction;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SlotKeysTest {

    private static final int WRITERS = 4;

    private static IndexLayout layout(String uuid, int shards) {
        long[] terms = new long[shards];
        java.util.Arrays.fill(terms, 1);
        return IndexLayout.of("logs", uuid, terms, new IndexRouting("logs", shards, shards, 1, RoutingFunction.MODULO));
    }

    private static PredictedShard predict(IndexLayout layout, DocumentOperation op) {
        return layout.shard(layout.routing().shardOf(op.id(), op.routing()));
    }

    private static DocumentOperation doc(String id) {
        return DocumentOperation.index("logs", id, "{}");
    }

    private static int writer(int key) {
        return key % WRITERS;
    }

    @Test
    void everyDocumentOfOneSlotGoesToOneWriterAndAnIndexsShardsSpreadOverAllWriters() {
        SlotKeys keys = new SlotKeys(WRITERS);
        IndexLayout layout = layout("u1", 8);
        int[] writerOfShard = new int[8];
        java.util.Arrays.fill(writerOfShard, -1);
        for (int i = 0; i < 2_000; i++) {
            DocumentOperation op = doc("d" + i);
            PredictedShard p = predict(layout, op);
            int w = writer(keys.keyOf(op, p));
            assertThat(writerOfShard[p.shard()]).as("shard %s", p.shard()).isIn(-1, w);
            writerOfShard[p.shard()] = w;
        }
        int[] shardsPerWriter = new int[WRITERS];
        for (int w : writerOfShard) {
            shardsPerWriter[w]++;
        }
        assertThat(shardsPerWriter).containsOnly(2);
    }

    @Test
    void aSingleShardIndexIsSplitOverEveryWriterByIdAndAnIdAlwaysReachesTheSameOne() {
        int writers = 8;
        SlotKeys keys = new SlotKeys(writers);
        IndexLayout layout = layout("u1", 1);
        int[] docsPerWriter = new int[writers];
        for (int i = 0; i < 8_000; i++) {
            DocumentOperation op = doc("d" + i);
            int w = keys.keyOf(op, predict(layout, op)) % writers;
            assertThat(keys.keyOf(op, predict(layout, op)) % writers)
                    .as("d%s", i)
                    .isEqualTo(w);
            docsPerWriter[w]++;
        }
        assertThat(java.util.Arrays.stream(docsPerWriter).boxed().toList())
                .as("every writer busy")
                .allSatisfy(n -> assertThat(n).isBetween(700, 1300));
    }

    @Test
    void shardsTheWritersDoNotDivideAreSplitSoNoWriterGetsMoreThanAQuarterAboveAnEvenShare() {
        int writers = 8;
        SlotKeys keys = new SlotKeys(writers);
        IndexLayout layout = layout("u1", 12); // unsplit: 4 writers with 2 shards, 4 with one
        int[] docsPerWriter = new int[writers];
        int docs = 24_000;
        for (int i = 0; i < docs; i++) {
            DocumentOperation op = doc("d" + i);
            docsPerWriter[keys.keyOf(op, predict(layout, op)) % writers]++;
        }
        assertThat(java.util.Arrays.stream(docsPerWriter).boxed().toList())
                .allSatisfy(n -> assertThat(n).isBetween(docs / writers * 3 / 4, docs / writers * 5 / 4));
    }

    @Test
    void theSpreadIsTheSmallestThatKeepsEveryWriterWithinAQuarterOfAnEvenShare() {
        int[][] shardsWritersSpread = {
            {1, 8, 8}, {6, 8, 4}, {12, 8, 2}, {48, 8, 1}, {96, 8, 1}, {20, 8, 1}, {6, 2, 1}, {3, 4, 4}, {5, 1, 1}
        };
        for (int[] row : shardsWritersSpread) {
            assertThat(SlotKeys.spreadOf(row[0], row[1]))
                    .as("%s shards on %s writers", row[0], row[1])
                    .isEqualTo(row[2]);
        }
    }

    @Test
    void documentsOfAnUnknownIndexGoToTheirIdsWriterAndTheSameIdAlwaysToTheSameOne() {
        SlotKeys keys = new SlotKeys(WRITERS);
        Set<Integer> writers = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            int first = writer(keys.keyOf(doc("d" + i), PredictedShard.UNKNOWN));
            assertThat(writer(keys.keyOf(doc("d" + i), PredictedShard.UNKNOWN))).isEqualTo(first);
            writers.add(first);
        }
        assertThat(writers).hasSize(WRITERS);
    }

    /**
     * The index appears: its documents were keyed by id while it was unknown, by slot once read.
     * An id whose last write went by id may still sit in that writer: it keeps its id key until a
     * checkpoint whose barrier came after the change completed, and ids written by id after that
     * barrier until a later checkpoint completed too. Never two writers for one id at a time.
     */
    @Test
    void anIdKeepsItsWriterAfterALayoutChangeUntilACheckpointCoversItsLastWriteThere() {
        SlotKeys keys = new SlotKeys(WRITERS);
        IndexLayout layout = layout("u1", 8);
        keys.barrier(1);
        keys.completed(1);
        DocumentOperation x = doc("x");
        DocumentOperation y = doc("y");
        int byIdX = keys.keyOf(x, PredictedShard.UNKNOWN);
        int byIdY = keys.keyOf(y, PredictedShard.UNKNOWN);
        int bySlotX = new SlotKeys(WRITERS).keyOf(x, predict(layout, x));
        int bySlotY = new SlotKeys(WRITERS).keyOf(y, predict(layout, y));
        assertThat(byIdX).as("the test needs keys that differ").isNotEqualTo(bySlotX);
        assertThat(byIdY).isNotEqualTo(bySlotY);

        assertThat(keys.keyOf(x, predict(layout, x)))
                .as("layout known, no checkpoint since")
                .isEqualTo(byIdX);
        keys.barrier(2);
        assertThat(keys.keyOf(x, predict(layout, x)))
                .as("after barrier 2, before it completed")
                .isEqualTo(byIdX);
        keys.completed(2);
        assertThat(keys.keyOf(y, predict(layout, y)))
                .as("y: last by-id write covered by checkpoint 2")
                .isEqualTo(bySlotY);
        assertThat(keys.keyOf(x, predict(layout, x)))
                .as("x: written by id after barrier 2")
                .isEqualTo(byIdX);
        assertThat(keys.remembered()).isEqualTo(1);
        keys.barrier(3);
        keys.completed(3);
        assertThat(keys.remembered())
                .as("x's by-id writes are all before barrier 3")
                .isZero();
        assertThat(keys.keyOf(x, predict(layout, x))).isEqualTo(bySlotX);
        assertThat(keys.keyOf(y, predict(layout, y))).isEqualTo(bySlotY);
    }

    @Test
    void withoutCheckpointsAnIdNeverChangesWriter() {
        SlotKeys keys = new SlotKeys(WRITERS);
        IndexLayout first = layout("u1", 8);
        IndexLayout recreated = layout("u2", 3);
        for (int i = 0; i < 300; i++) {
            DocumentOperation op = doc("d" + i);
            int before = keys.keyOf(op, predict(first, op));
            assertThat(writer(keys.keyOf(op, predict(recreated, op)))).isEqualTo(writer(before));
            assertThat(writer(keys.keyOf(op, PredictedShard.UNKNOWN))).isEqualTo(writer(before));
        }
        assertThat(keys.remembered()).as("nothing to remember before a barrier").isZero();
    }

    @Test
    void aLayoutChangeDuringASwitchWaitsForTheSwitchToEnd() {
        SlotKeys keys = new SlotKeys(WRITERS);
        IndexLayout first = layout("u1", 8);
        IndexLayout second = layout("u2", 3);
        IndexLayout third = layout("u3", 5);
        DocumentOperation x = doc("x");
        int firstKey = keys.keyOf(x, predict(first, x));
        keys.barrier(1);
        assertThat(keys.keyOf(x, predict(second, x))).isEqualTo(firstKey);
        assertThat(keys.keyOf(x, predict(third, x)))
                .as("still switching from the first layout")
                .isEqualTo(firstKey);
        keys.completed(1);
        keys.barrier(2);
        keys.completed(2);
        int secondKey = new SlotKeys(WRITERS).keyOf(x, predict(second, x));
        assertThat(keys.keyOf(x, predict(third, x)))
                .as("the second layout's switch is over; the third one's begins")
                .isEqualTo(secondKey);
    }

    @Test
    void documentsWithoutIdAreSpreadOverEveryWriter() {
        SlotKeys keys = new SlotKeys(WRITERS);
        Set<Integer> writers = new HashSet<>();
        for (int i = 0; i < 8; i++) {
            writers.add(writer(keys.keyOf(DocumentOperation.index("logs", null, "{}"), PredictedShard.UNKNOWN)));
        }
        assertThat(writers).hasSize(WRITERS);
    }
}
