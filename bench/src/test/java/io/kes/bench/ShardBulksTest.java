package io.kes.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShardBulksTest {

    private static byte[] source(int n) {
        return ("{\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8);
    }

    private static String text(ShardBulks.Bulk bulk) {
        return new String(bulk.body(), StandardCharsets.UTF_8);
    }

    @Test
    void aShardsBodyLeavesWhenItHoldsDocsPerBulkDocuments() {
        ShardBulks bulks = new ShardBulks(2, 2);

        assertThat(bulks.add(0, "a", source(1))).isNull();
        assertThat(bulks.add(1, "b", source(2))).isNull();
        ShardBulks.Bulk full = bulks.add(0, "c", source(3));

        assertThat(full.shard()).isZero();
        assertThat(full.docs()).isEqualTo(2);
        assertThat(text(full))
                .isEqualTo("{\"index\":{\"_id\":\"a\"}}\n{\"n\":1}\n{\"index\":{\"_id\":\"c\"}}\n{\"n\":3}\n");
    }

    @Test
    void aCutBodyStartsEmptyAgain() {
        ShardBulks bulks = new ShardBulks(1, 1);

        ShardBulks.Bulk first = bulks.add(0, "a", source(1));
        ShardBulks.Bulk second = bulks.add(0, "b", source(2));

        assertThat(text(first)).isEqualTo("{\"index\":{\"_id\":\"a\"}}\n{\"n\":1}\n");
        assertThat(text(second)).isEqualTo("{\"index\":{\"_id\":\"b\"}}\n{\"n\":2}\n");
    }

    @Test
    void drainReturnsEveryPartlyFilledBodyOnceInShardOrder() {
        ShardBulks bulks = new ShardBulks(3, 10);
        bulks.add(2, "a", source(1));
        bulks.add(0, "b", source(2));
        bulks.add(2, "c", source(3));

        List<ShardBulks.Bulk> left = bulks.drain();

        assertThat(left).extracting(ShardBulks.Bulk::shard).containsExactly(0, 2);
        assertThat(left).extracting(ShardBulks.Bulk::docs).containsExactly(1, 2);
        assertThat(bulks.drain()).isEmpty();
    }

    @Test
    void noShardsOrNoDocumentsPerBulkIsRefused() {
        assertThatThrownBy(() -> new ShardBulks(0, 1000)).hasMessageContaining("at least 1");
        assertThatThrownBy(() -> new ShardBulks(6, 0)).hasMessageContaining("at least 1");
    }
}
