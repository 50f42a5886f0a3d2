package io.kes.connector.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.routing.IndexLayout;
import io.kes.connector.routing.IndexRouting;
import io.kes.connector.routing.RoutingFunction;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class HotSlotsTest {

    private static final int WINDOW = 1000;

    private static KeyRule rule(int shards, int writers) {
        long[] terms = new long[shards];
        Arrays.fill(terms, 1);
        IndexLayout layout = IndexLayout.of(
                "logs", "u1", terms, new IndexRouting("logs", shards, shards, 1, RoutingFunction.MODULO));
        return new KeyRule(new SlotKeys.Target(0), layout.shard(0), writers);
    }

    /** {@code shards} counts: {@code hot} documents of the window on shard 0, the rest even over the others. */
    private static int[] counts(int shards, int hot) {
        int[] counts = new int[shards];
        counts[0] = hot;
        for (int s = 1; s < shards; s++) {
            counts[s] = (WINDOW - hot) / (shards - 1);
        }
        return counts;
    }

    @Test
    void aSlotWithHalfTheDocumentsIsSplitSoEachPartCarriesAnEvenWritersShare() {
        int[] hot = HotSlots.next(counts(48, 500), WINDOW, 8, rule(48, 8));
        assertThat(hot).isNotNull();
        assertThat(hot[0]).as("load 4 writers' shares").isEqualTo(4);
        assertThat(Arrays.stream(hot, 1, 48)).containsOnly(1);
    }

    @Test
    void aSlotUpToAQuarterAboveAnEvenWritersShareStaysWhole() {
        assertThat(HotSlots.next(counts(48, 156), WINDOW, 8, rule(48, 8)))
                .as("load 1.25")
                .isNull();
        assertThat(HotSlots.next(counts(48, 160), WINDOW, 8, rule(48, 8))[0])
                .as("load 1.28")
                .isEqualTo(2);
    }

    @Test
    void aSplitSlotStaysSplitUntilItsLoadFallsBelowHalfItsSpread() {
        KeyRule split = new KeyRule(rule(48, 8), HotSlots.next(counts(48, 500), WINDOW, 8, rule(48, 8)));
        assertThat(HotSlots.next(counts(48, 500), WINDOW, 8, split))
                .as("unchanged")
                .isNull();
        assertThat(HotSlots.next(counts(48, 250), WINDOW, 8, split))
                .as("load 2 = half of 4")
                .isNull();
        assertThat(HotSlots.next(counts(48, 620), WINDOW, 8, split))
                .as("load 4.96 < 1.25 x 4")
                .isNull();
        assertThat(HotSlots.next(counts(48, 240), WINDOW, 8, split)[0])
                .as("load 1.92")
                .isEqualTo(2);
        assertThat(HotSlots.next(counts(48, 10), WINDOW, 8, split)[0])
                .as("cold")
                .isEqualTo(1);
        assertThat(new KeyRule(split, HotSlots.next(counts(48, 10), WINDOW, 8, split)).hot)
                .as("no slot hot: the rule is the plain one again")
                .isNull();
        assertThat(HotSlots.next(counts(48, 1000), WINDOW, 8, split)[0])
                .as("every document: every writer")
                .isEqualTo(8);
    }

    @Test
    void slotsOfAnIndexWithFewerShardsThanWritersAreNotSplitTwice() {
        assertThat(HotSlots.next(new int[] {WINDOW}, WINDOW, 8, rule(1, 8)))
                .as("1 shard: split over all 8 already")
                .isNull();
        assertThat(HotSlots.next(new int[] {500, 500}, WINDOW, 8, rule(2, 8)))
                .as("2 shards: each over 4 already")
                .isNull();
        assertThat(HotSlots.next(new int[] {900, 100}, WINDOW, 8, rule(2, 8)))
                .as("2 shards, one with 90%: 7.2 writers' shares")
                .containsExactly(8, 1);
    }
}
