package io.kes.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BulkShapeTest {

    @Test
    void singleShardBulksAreOneShardOperationEach() {
        BulkShape kes = new BulkShape(180_000, 6_000, 6_000);

        assertThat(kes.docsPerBulk()).isEqualTo(30);
        assertThat(kes.docsPerShardOperation()).isEqualTo(30);
        assertThat(kes.shardsPerBulk()).isEqualTo(1);
    }

    @Test
    void aBulkOverSixShardsIsSixShardOperationsSoEachCarriesASixthOfItsDocuments() {
        BulkShape mixed = new BulkShape(180_000, 240, 240 * 6);

        assertThat(mixed.docsPerBulk()).isEqualTo(750);
        assertThat(mixed.docsPerShardOperation()).isEqualTo(125);
        assertThat(mixed.shardsPerBulk()).isEqualTo(6);
    }

    @Test
    void withoutBulksOrShardOperationsTheRatiosAreNotANumber() {
        BulkShape none = new BulkShape(0, 0, 0);

        assertThat(none.docsPerBulk()).isNaN();
        assertThat(none.docsPerShardOperation()).isNaN();
        assertThat(none.shardsPerBulk()).isNaN();
    }
}
