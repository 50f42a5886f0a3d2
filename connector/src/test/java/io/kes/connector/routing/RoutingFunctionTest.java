package io.kes.connector.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RoutingFunctionTest {

    @Test
    void moduloCyclesThroughShardsOneHashAtATime() {
        // mirrors elastic/elasticsearch RoutingFunctionTests#testModuloSanity
        int shards = 1024;
        int hash = 0;
        for (int round = 0; round < 3; round++) {
            for (int shard = 0; shard < shards; shard++) {
                assertThat(RoutingFunction.MODULO.shard(hash++, shards, 99)).isEqualTo(shard);
            }
        }
    }

    @Test
    void routingNumShardsGivesEachShardAContiguousRunOfVirtualShards() {
        // mirrors elastic/elasticsearch RoutingFunctionTests#testLegacySanity: routingFactor = 1024 / shards
        int routingNumShards = 1024;
        for (int routingFactor : new int[] {512, 256, 128, 64, 32, 16, 8}) {
            int shards = routingNumShards / routingFactor;
            int hash = 0;
            for (int round = 0; round < 2; round++) {
                for (int virtual = 0; virtual < routingNumShards; virtual++) {
                    assertThat(RoutingFunction.ROUTING_NUM_SHARDS.shard(hash++, shards, routingNumShards))
                            .isEqualTo(virtual / routingFactor);
                }
            }
        }
    }

    @Test
    void negativeHashesUseFloorModNotRemainder() {
        // floorMod(-2, 640) = 638, 638 / 128 = 4; floorMod(-2, 5) = 3. Plain % would give negative shards.
        assertThat(RoutingFunction.ROUTING_NUM_SHARDS.shard(-2, 5, 640)).isEqualTo(4);
        assertThat(RoutingFunction.MODULO.shard(-2, 5, 640)).isEqualTo(3);
        // floorMod(-2^31, 768) = 256 (0 mod 256, 1 mod 3), 256 / 256 = 1
        assertThat(RoutingFunction.ROUTING_NUM_SHARDS.shard(Integer.MIN_VALUE, 3, 768))
                .isEqualTo(1);
        assertThat(RoutingFunction.MODULO.shard(Integer.MIN_VALUE, 3, 768))
                .isEqualTo(Math.floorMod(Integer.MIN_VALUE, 3));
    }

    @Test
    void bothFunctionsAgreeWhenRoutingNumShardsEqualsNumberOfShards() {
        for (int hash = -5000; hash < 5000; hash += 7) {
            assertThat(RoutingFunction.ROUTING_NUM_SHARDS.shard(hash, 6, 6))
                    .isEqualTo(RoutingFunction.MODULO.shard(hash, 6, 6));
        }
    }

    @Test
    void routingNumShardsRejectsShardCountsThatDoNotDivideIt() {
        assertThatThrownBy(() -> RoutingFunction.ROUTING_NUM_SHARDS.shard(1, 3, 1024))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("numberOfShards (3) must divide routingNumShards (1024)");
        assertThat(RoutingFunction.MODULO.shard(4, 3, 1024)).isEqualTo(1); // MODULO does not use routingNumShards
    }

    @Test
    void rejectsNonPositiveShardCounts() {
        assertThatThrownBy(() -> RoutingFunction.MODULO.shard(1, 0, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("numberOfShards must be at least 1");
        assertThatThrownBy(() -> RoutingFunction.ROUTING_NUM_SHARDS.shard(1, 1, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("routingNumShards must be at least 1");
    }
}
