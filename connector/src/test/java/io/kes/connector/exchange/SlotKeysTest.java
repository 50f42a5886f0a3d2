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
            assertThat(KeyRule.spreadOf(row[0], row[1]))
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
     * An id whose last write went by id may still sit in that writer: it keeps its id's writer
     * until a checkpoint whose barrier came after the change completed, and ids written by id after
     * that barrier until a later checkpoint completed too. Never two writers for one id at a time.
     */
    @Test
    void anIdKeepsItsWriterAfterALayoutChangeUntilACheckpointCoversItsLastWriteThere() {
        SlotKeys keys = new SlotKeys(WRITERS);
        IndexLayout layout = layout("u1", 8);
        keys.barrier(1);
        keys.completed(1);
        DocumentOperation x = doc(movedBetween(null, layout, 0));
        DocumentOperation y = doc(movedBetween(null, layout, Integer.parseInt(x.id().substring(1)) + 1));
        int byIdX = writer(keys.keyOf(x, PredictedShard.UNKNOWN));
        int byIdY = writer(keys.keyOf(y, PredictedShard.UNKNOWN));
        int bySlotX = writerUnder(layout, x.id());
        int bySlotY = writerUnder(layout, y.id());

        assertThat(writer(keys.keyOf(x, predict(layout, x))))
                .as("layout known, no checkpoint since")
                .isEqualTo(byIdX);
        keys.barrier(2);
        assertThat(writer(keys.keyOf(x, predict(layout, x))))
                .as("after barrier 2, before it completed")
                .isEqualTo(byIdX);
        keys.completed(2);
        assertThat(writer(keys.keyOf(y, predict(layout, y))))
                .as("y: last by-id write covered by checkpoint 2")
                .isEqualTo(bySlotY);
        assertThat(writer(keys.keyOf(x, predict(layout, x))))
                .as("x: written by id after barrier 2")
                .isEqualTo(byIdX);
        assertThat(keys.remembered()).isEqualTo(1);
        keys.barrier(3);
        keys.completed(3);
        assertThat(keys.remembered())
                .as("x's by-id writes are all before barrier 3")
                .isZero();
        assertThat(writer(keys.keyOf(x, predict(layout, x)))).isEqualTo(bySlotX);
        assertThat(writer(keys.keyOf(y, predict(layout, y)))).isEqualTo(bySlotY);
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
        DocumentOperation x = doc(movedBetween(second, third, 0));
        int firstWriter = writer(keys.keyOf(x, predict(first, x)));
        keys.barrier(1);
        assertThat(writer(keys.keyOf(x, predict(second, x)))).isEqualTo(firstWriter);
        assertThat(writer(keys.keyOf(x, predict(third, x))))
                .as("still switching from the first layout")
                .isEqualTo(firstWriter);
        keys.completed(1);
        keys.barrier(2);
        keys.completed(2);
        assertThat(writer(keys.keyOf(x, predict(third, x))))
                .as("the second layout's switch is over; the third one's begins")
                .isEqualTo(writerUnder(second, x.id()));
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

    /** The writer a fresh router gives {@code id} under {@code layout} (null: the index is unknown). */
    private static int writerUnder(IndexLayout layout, String id) {
        DocumentOperation op = doc(id);
        return writer(new SlotKeys(WRITERS).keyOf(op, layout == null ? PredictedShard.UNKNOWN : predict(layout, op)));
    }

    /** The first id {@code d<i>} whose writer differs between {@code a} and {@code b}. */
    private static String movedBetween(IndexLayout a, IndexLayout b, int from) {
        for (int i = from; ; i++) {
            if (writerUnder(a, "d" + i) != writerUnder(b, "d" + i)) {
                return "d" + i;
            }
        }
    }

    /**
     * A hot id, written before every barrier and again before that checkpoint completed, always
     * has a write the old writer may not have acknowledged: it must stay there as long as it is
     * hot. But it must not keep its target's switch open: the index's other ids move, a later
     * layout change still takes effect, and the hot id moves too after one checkpoint without it.
     */
    @Test
    void aHotIdKeepsItsWriterWhileHotWithoutHoldingTheSwitchOpen() {
        IndexLayout first = layout("u1", 8);
        IndexLayout second = layout("u2", 3);
        IndexLayout third = layout("u3", 5);
        String hot = movedBetween(first, second, 0);
        String cold = movedBetween(second, third, 0);
        OrderChecker route = new OrderChecker(new SlotKeys(WRITERS));
        int hotWriter = route.id(hot, first);
        route.id(cold, first);
        long checkpoint = 0;
        for (int i = 0; i < 10; i++) {
            checkpoint++;
            route.id(hot, second);
            route.barrier(checkpoint);
            assertThat(route.id(hot, second))
                    .as("hot, checkpoint %s", checkpoint)
                    .isEqualTo(hotWriter);
            route.completed(checkpoint);
        }
        assertThat(route.keys.remembered()).as("only the hot id").isEqualTo(1);
        assertThat(route.id(cold, second)).isEqualTo(writerUnder(second, cold));

        route.id(cold, third); // the third layout's switch begins: the second one's is over
        for (int i = 0; i < 2; i++) {
            checkpoint++;
            route.id(hot, third);
            route.barrier(checkpoint);
            assertThat(route.id(hot, third)).isEqualTo(hotWriter);
            route.completed(checkpoint);
        }
        assertThat(route.id(cold, third))
                .as("a later layout change took effect")
                .isEqualTo(writerUnder(third, cold));

        checkpoint++;
        route.barrier(checkpoint); // not written after this barrier
        route.completed(checkpoint);
        assertThat(route.id(hot, third)).as("no longer hot").isEqualTo(writerUnder(third, hot));
        route.barrier(++checkpoint);
        route.completed(checkpoint);
        assertThat(route.keys.remembered()).isZero();
    }

    /**
     * A million distinct ids written while a switch is waiting for its first checkpoint: each may
     * have its last write unacknowledged at the old writer, yet the router remembers at most
     * {@link SlotKeys#MAX_REMEMBERED_IDS} of them; the rest stay on the old rule a little longer,
     * and every id reaches its new writer within a few checkpoints, none ever moved too early.
     */
    @Test
    void aMillionDistinctIdsDuringASwitchStayWithinTheBoundAndAllReachTheirNewWriter() {
        int ids = 1_000_000;
        IndexLayout layout = layout("u1", 8);
        OrderChecker route = new OrderChecker(new SlotKeys(WRITERS));
        route.barrier(1);
        route.completed(1);
        for (int i = 0; i < ids; i++) {
            route.id("d" + i, null);
        }
        route.id("d0", layout); // the layout is read: the switch begins
        route.barrier(2);
        for (int i = 0; i < ids; i++) {
            route.id("d" + i, layout); // after barrier 2, before checkpoint 2 completed
        }
        assertThat(route.keys.remembered()).isLessThanOrEqualTo(SlotKeys.MAX_REMEMBERED_IDS);
        route.completed(2);
        for (long checkpoint = 3; checkpoint < 40; checkpoint++) {
            route.barrier(checkpoint);
            route.completed(checkpoint);
        }
        int moved = 0;
        for (int i = 0; i < ids; i++) {
            String id = "d" + i;
            DocumentOperation op = doc(id);
            moved += route.id(id, layout) == writer(new SlotKeys(WRITERS).keyOf(op, predict(layout, op))) ? 1 : 0;
        }
        assertThat(moved).as("ids at their slot's writer").isEqualTo(ids);
        assertThat(route.keys.remembered()).isZero();
    }

    @Test
    void anIdBothRulesSendToOneWriterNeedsNoMemory() {
        IndexLayout layout = layout("u1", 8);
        String same = null;
        for (int i = 0; same == null; i++) {
            same = writerUnder(null, "d" + i) == writerUnder(layout, "d" + i) ? "d" + i : null;
        }
        OrderChecker route = new OrderChecker(new SlotKeys(WRITERS));
        route.id(same, null);
        route.id("other", layout); // the switch begins
        route.barrier(1);
        assertThat(route.id(same, layout)).isEqualTo(writerUnder(layout, same));
        assertThat(route.keys.remembered()).isZero();
    }

    @Test
    void idsWrittenOnceARunNeedNoMemory() {
        IndexLayout layout = layout("u1", 8);
        SlotKeys keys = new SlotKeys(WRITERS);
        keys.keyOf(doc("d0"), predict(layout("u0", 3), doc("d0")));
        keys.keyOf(doc("d0"), predict(layout, doc("d0"))); // the switch begins
        keys.barrier(1);
        for (int i = 0; i < 1_000; i++) {
            DocumentOperation op = DocumentOperation.write(io.kes.connector.OpType.INDEX, "logs")
                    .id("topic-0-" + i)
                    .source("{}".getBytes(java.nio.charset.StandardCharsets.UTF_8))
                    .idUnique(true)
                    .build();
            assertThat(writer(keys.keyOf(op, predict(layout, op)))).isEqualTo(writerUnder(layout, op.id()));
        }
        assertThat(keys.remembered()).isZero();
    }

    /**
     * The completion of a checkpoint whose barrier this router did not pass (the run's before a
     * restore) covers none of its writes. Flink skips such notifications since FLINK-24096; the
     * router does not depend on it.
     */
    @Test
    void aCompletionWhoseBarrierThisRouterDidNotPassCoversNothing() {
        IndexLayout layout = layout("u1", 8);
        String x = movedBetween(null, layout, 0);
        String y = movedBetween(null, layout, Integer.parseInt(x.substring(1)) + 1);
        OrderChecker route = new OrderChecker(new SlotKeys(WRITERS));
        int xById = route.id(x, null);
        int yById = route.id(y, null);
        route.id(x, layout); // the switch begins
        route.keys.completed(7); // the run before's last checkpoint
        assertThat(route.id(x, layout)).isEqualTo(xById);
        route.barrier(8);
        route.keys.completed(7);
        assertThat(route.id(y, layout)).isEqualTo(yById);
        route.completed(8);
        assertThat(route.id(x, layout))
                .as("x: its last write came before barrier 8")
                .isEqualTo(writerUnder(layout, x));
        assertThat(route.id(y, layout)).as("y: written after barrier 8").isEqualTo(yById);
    }

    /**
     * Random routing, barriers (some checkpoints overlapping, some never completing), completions
     * and layout changes, with room for only 8 remembered ids: no id ever moves while its last
     * write may be unacknowledged, the bound holds, and once the layouts stop changing every id
     * reaches the newest layout's writer.
     */
    @Test
    void randomRoutingNeverMovesAnIdEarlyStaysWithinItsBoundAndEndsOnTheNewestLayout() {
        IndexLayout[] layouts = {null, layout("u1", 8), layout("u2", 3), layout("u3", 5), layout("u4", 1)};
        int ids = 60;
        int bound = 8;
        for (long seed = 0; seed < 300; seed++) {
            java.util.Random random = new java.util.Random(seed);
            OrderChecker route = new OrderChecker(new SlotKeys(WRITERS, bound));
            int current = 0;
            long barriers = 0;
            long completed = 0;
            for (int step = 0; step < 2_000; step++) {
                int what = random.nextInt(100);
                if (what < 80) {
                    route.id("d" + random.nextInt(ids), layouts[current]);
                } else if (what < 88) {
                    route.barrier(++barriers);
                } else if (what < 97) {
                    if (completed < barriers && random.nextInt(4) > 0) {
                        completed += 1 + random.nextInt((int) (barriers - completed));
                        route.completed(completed);
                    }
                } else if (current < layouts.length - 1) {
                    current++;
                }
                assertThat(route.keys.remembered()).as("seed %s", seed).isLessThanOrEqualTo(bound);
            }
            for (int quiet = 0; quiet < 80; quiet++) {
                for (int i = 0; i < ids; i++) {
                    route.id("d" + i, layouts[current]);
                }
                route.barrier(++barriers);
                route.completed(barriers);
            }
            for (int i = 0; i < ids; i++) {
                assertThat(route.id("d" + i, layouts[current]))
                        .as("seed %s, d%s", seed, i)
                        .isEqualTo(writerUnder(layouts[current], "d" + i));
            }
        }
    }

    /**
     * Routes through a {@link SlotKeys} and fails when an id reaches another writer than its last
     * one while that last write may still be unacknowledged: no checkpoint whose barrier came after
     * it has completed.
     */
    /**
     * Issue 66 item 4, the boundary: more ids than the router may remember, each written after
     * every barrier and again before that checkpoint completes, can never all leave their old
     * writer (each one's last write there is always unacknowledged). The table stays full and the
     * switch stops at the first such id it has no room for: the ids past it stay on the old rule
     * (their order kept, their shard's documents spread over more writers) for as long as that
     * many ids stay that hot; once they cool, the switch ends within a few checkpoints.
     */
    @Test
    void moreHotIdsThanTheBoundHoldASwitchOnlyWhileTheyStayHot() {
        int bound = 16;
        IndexLayout first = layout("u1", 8);
        IndexLayout second = layout("u2", 3);
        OrderChecker route = new OrderChecker(new SlotKeys(WRITERS, bound));
        java.util.List<String> hot = new java.util.ArrayList<>();
        java.util.List<String> cold = new java.util.ArrayList<>();
        for (int i = 0; hot.size() < 10 * bound || cold.size() < 200; i++) {
            String id = "d" + i;
            if (writerUnder(first, id) != writerUnder(second, id)) {
                (i % 2 == 0 && hot.size() < 10 * bound ? hot : cold).add(id);
            }
        }
        for (String id : hot) {
            route.id(id, first);
        }
        for (String id : cold) {
            route.id(id, first);
        }
        long checkpoint = 0;
        for (int interval = 0; interval < 60; interval++) {
            route.barrier(++checkpoint);
            for (String id : hot) {
                route.id(id, second); // written after the barrier, before its checkpoint completes
            }
            route.completed(checkpoint);
            assertThat(route.keys.remembered()).isLessThanOrEqualTo(bound);
        }
        long coldMoved = cold.stream()
                .filter(id -> route.id(id, second) == writerUnder(second, id))
                .count();
        assertThat(coldMoved)
                .as("the switch stopped at the first hot id without room: not every cold id moved")
                .isLessThan(cold.size());

        for (int interval = 0; interval < 40; interval++) { // the hot ids cool
            route.barrier(++checkpoint);
            route.completed(checkpoint);
        }
        for (String id : hot) {
            assertThat(route.id(id, second)).as(id).isEqualTo(writerUnder(second, id));
        }
        for (String id : cold) {
            assertThat(route.id(id, second)).as(id).isEqualTo(writerUnder(second, id));
        }
        assertThat(route.keys.remembered()).isZero();
    }

    private static final class OrderChecker {
        final SlotKeys keys;
        private final java.util.Map<String, long[]> last = new java.util.HashMap<>();
        private long lastBarrier = -1;
        private long lastCompleted = -1;

        OrderChecker(SlotKeys keys) {
            this.keys = keys;
        }

        int id(String id, IndexLayout layout) {
            DocumentOperation op = doc(id);
            int writer = writer(keys.keyOf(op, layout == null ? PredictedShard.UNKNOWN : predict(layout, op)));
            long[] before = last.get(id);
            if (before == null) {
                last.put(id, new long[] {writer, lastBarrier});
                return writer;
            }
            if (before[0] != writer && lastCompleted <= before[1]) {
                throw new AssertionError(id + " moved from writer " + before[0] + " to " + writer
                        + " while its write after barrier " + before[1] + " may be unacknowledged (last completed: "
                        + lastCompleted + ")");
            }
            before[0] = writer;
            before[1] = lastBarrier;
            return writer;
        }

        void barrier(long checkpoint) {
            lastBarrier = Math.max(lastBarrier, checkpoint);
            keys.barrier(checkpoint);
        }

        void completed(long checkpoint) {
            lastCompleted = Math.max(lastCompleted, checkpoint);
            keys.completed(checkpoint);
        }
    }
    /**
     * A routing value with half the documents puts its slot on one writer: once a window counted
     * it, the slot is split over several writers by the id, every writer is busy and none carries
     * more than about twice an even share; an id changes writer only once a completed checkpoint
     * covers its last write to the old one.
     */
    @Test
    void aHotRoutingValuesSlotIsSplitOverSeveralWritersAndAnIdMovesOnlyAfterACheckpointCoversIt() {
        int writers = 8;
        SlotKeys keys = new SlotKeys(writers);
        IndexLayout layout = layout("u1", 48);
        java.util.Map<String, Integer> writerOf = new java.util.HashMap<>();
        java.util.Map<String, Long> lastWriteBefore =
                new java.util.HashMap<>(); // the next barrier after its last write
        long barrier = 0;
        int[] lastWindow = new int[writers];
        int docs = 6 * HotSlots.WINDOW;
        for (int i = 0; i < docs; i++) {
            if (i % 500 == 0) {
                keys.barrier(++barrier);
                keys.completed(barrier - 1); // checkpoints complete one interval late
            }
            String id = "d" + (i % 3_000);
            DocumentOperation op = DocumentOperation.write(io.kes.connector.OpType.INDEX, "logs")
                    .id(id)
                    .routing(i % 2 == 0 ? "hot" : null)
                    .source("{}".getBytes(java.nio.charset.StandardCharsets.UTF_8))
                    .build();
            int w = writer(keys.keyOf(op, predict(layout, op)), writers);
            Integer before = writerOf.put(id, w);
            if (before != null && before != w) {
                assertThat(barrier - 1)
                        .as(
                                "%s moved from writer %s to %s: a completed checkpoint covers its last write there",
                                id, before, w)
                        .isGreaterThanOrEqualTo(lastWriteBefore.get(id));
            }
            lastWriteBefore.put(id, barrier + 1);
            if (i >= docs - HotSlots.WINDOW) {
                lastWindow[w]++;
            }
        }
        assertThat(java.util.Arrays.stream(lastWindow).boxed().toList())
                .as("documents per writer in the last window (even: %s)", HotSlots.WINDOW / writers)
                .allSatisfy(n -> assertThat(n).isBetween(1, HotSlots.WINDOW / 4));
        assertThat(keys.hotSlots()).as("the metric: one slot split").isEqualTo(1);
    }

    private static int writer(int key, int writers) {
        return key % writers;
    }
}
