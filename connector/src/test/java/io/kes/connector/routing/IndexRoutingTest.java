package io.kes.connector.routing;

import static io.kes.connector.routing.RoutingFunction.MODULO;
import static io.kes.connector.routing.RoutingFunction.ROUTING_NUM_SHARDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class IndexRoutingTest {

    /**
     * elastic/elasticsearch server/src/test/java/org/elasticsearch/cluster/routing/IndexRoutingTests#testBWC
     * ("Ensures that all changes to the hash-function / shard selection are BWC"): an 8-shard index built
     * without setRoutingNumShards, so routingNumShards = numberOfShards = 8 and both functions apply. Each
     * term is used there as the _id, as the _routing (with a random id), and as the search routing.
     */
    private static final Map<String, Integer> ES_BWC_EIGHT_SHARDS = new LinkedHashMap<>();

    static {
        Map<String, Integer> m = ES_BWC_EIGHT_SHARDS;
        m.put("sEERfFzPSI", 1);
        m.put("cNRiIrjzYd", 7);
        m.put("BgfLBXUyWT", 5);
        m.put("cnepjZhQnb", 3);
        m.put("OKCmuYkeCK", 6);
        m.put("OutXGRQUja", 5);
        m.put("yCdyocKWou", 1);
        m.put("KXuNWWNgVj", 2);
        m.put("DGJOYrpESx", 4);
        m.put("upLDybdTGs", 5);
        m.put("yhZhzCPQby", 1);
        m.put("EyCVeiCouA", 1);
        m.put("tFyVdQauWR", 6);
        m.put("nyeRYDnDQr", 6);
        m.put("hswhrppvDH", 0);
        m.put("BSiWvDOsNE", 5);
        m.put("YHicpFBSaY", 1);
        m.put("EquPtdKaBZ", 4);
        m.put("rSjLZHCDfT", 5);
        m.put("qoZALVcite", 7);
        m.put("yDCCPVBiCm", 7);
        m.put("ngizYtQgGK", 5);
        m.put("FYQRIBcNqz", 0);
        m.put("EBzEDAPODe", 2);
        m.put("YePigbXgKb", 1);
        m.put("PeGJjomyik", 3);
        m.put("cyQIvDmyYD", 7);
        m.put("yIEfZrYfRk", 5);
        m.put("kblouyFUbu", 7);
        m.put("xvIGbRiGJF", 3);
        m.put("KWimwsREPf", 4);
        m.put("wsNavvIcdk", 7);
        m.put("xkWaPcCmpT", 0);
        m.put("FKKTOnJMDy", 7);
        m.put("RuLzobYixn", 2);
        m.put("mFohLeFRvF", 4);
        m.put("aAMXnamRJg", 7);
        m.put("zKBMYJDmBI", 0);
        m.put("ElSVuJQQuw", 7);
        m.put("pezPtTQAAm", 7);
        m.put("zBjjNEjAex", 2);
        m.put("PGgHcLNPYX", 7);
        m.put("hOkpeQqTDF", 3);
        m.put("chZXraUPBH", 7);
        m.put("FAIcSmmNXq", 5);
        m.put("EZmDicyayC", 0);
        m.put("GRIueBeIyL", 7);
        m.put("qCChjGZYLp", 3);
        m.put("IsSZQwwnUT", 3);
        m.put("MGlxLFyyCK", 3);
        m.put("YmscwrKSpB", 0);
        m.put("czSljcjMop", 5);
        m.put("XhfGWwNlng", 1);
        m.put("cWpKJjlzgj", 7);
        m.put("eDzIfMKbvk", 1);
        m.put("WFFWYBfnTb", 0);
        m.put("oDdHJxGxja", 7);
        m.put("PDOQQqgIKE", 1);
        m.put("bGEIEBLATe", 6);
        m.put("xpRkJPWVpu", 2);
        m.put("kTwZnPEeIi", 2);
        m.put("DifcuqSsKk", 1);
        m.put("CEmLmljpXe", 5);
        m.put("cuNKtLtyJQ", 7);
        m.put("yNjiAnxAmt", 5);
        m.put("bVDJDCeaFm", 2);
        m.put("vdnUhGLFtl", 0);
        m.put("LnqSYezXbr", 5);
        m.put("EzHgydDCSR", 3);
        m.put("ZSKjhJlcpn", 1);
        m.put("WRjUoZwtUz", 3);
        m.put("RiBbcCdIgk", 4);
        m.put("yizTqyjuDn", 4);
        m.put("QnFjcpcZUT", 4);
        m.put("agYhXYUUpl", 7);
        m.put("UOjiTugjNC", 7);
        m.put("nICGuWTdfV", 0);
        m.put("NrnSmcnUVF", 2);
        m.put("ZSzFcbpDqP", 3);
        m.put("YOhahLSzzE", 5);
        m.put("iWswCilUaT", 1);
        m.put("zXAamKsRwj", 2);
        m.put("aqGsrUPHFq", 5);
        m.put("eDItImYWTS", 1);
        m.put("JAYDZMRcpW", 4);
        m.put("lmvAaEPflK", 7);
        m.put("IKuOwPjKCx", 5);
        m.put("schsINzlYB", 1);
        m.put("OqbFNxrKrF", 2);
        m.put("QrklDfvEJU", 6);
        m.put("VLxKRKdLbx", 4);
        m.put("imoydNTZhV", 1);
        m.put("uFZyTyOMRO", 4);
        m.put("nVAZVMPNNx", 3);
        m.put("rPIdESYaAO", 5);
        m.put("nbZWPWJsIM", 0);
        m.put("wRZXPSoEgd", 3);
        m.put("nGzpgwsSBc", 4);
        m.put("AITyyoyLLs", 4);
    }

    private static IndexRouting routing(int shards, int routingNumShards, int partitionSize, RoutingFunction function) {
        return new IndexRouting("test", shards, routingNumShards, partitionSize, function);
    }

    @Test
    void matchesElasticsearchBwcTableForEightShardsByIdRoutingAndSearch() {
        assertThat(ES_BWC_EIGHT_SHARDS).hasSize(99);
        for (RoutingFunction function : RoutingFunction.values()) {
            IndexRouting index = routing(8, 8, 1, function);
            ES_BWC_EIGHT_SHARDS.forEach((term, shard) -> {
                assertThat(index.shardOf(term, null))
                        .as("%s as _id, %s", term, function)
                        .isEqualTo(shard);
                assertThat(index.shardOf("any-id", term))
                        .as("%s as _routing, %s", term, function)
                        .isEqualTo(shard);
                assertThat(index.searchShards(term))
                        .as("%s as search routing, %s", term, function)
                        .containsExactly(shard);
            });
        }
    }

    @Test
    void partitionedIndexMatchesElasticsearchBwcTable() {
        // elastic/elasticsearch IndexRoutingTests#testPartitionedIndexBWC: 6 shards, routing_partition_size 2,
        // no setRoutingNumShards (routingNumShards = 6, so both functions apply). routing -> (id -> shard).
        Map<String, Map<String, Integer>> table = Map.of(
                "a", Map.of("a_0", 3, "a_1", 2, "a_2", 2, "a_3", 3),
                "b", Map.of("b_0", 5, "b_1", 0, "b_2", 0, "b_3", 0),
                "c", Map.of("c_0", 4, "c_1", 4, "c_2", 3, "c_3", 4),
                "d", Map.of("d_0", 3, "d_1", 4, "d_2", 4, "d_3", 4));
        for (RoutingFunction function : RoutingFunction.values()) {
            IndexRouting index = routing(6, 6, 2, function);
            table.forEach((r, ids) -> ids.forEach((id, shard) -> assertThat(index.shardOf(id, r))
                    .as("id %s routing %s, %s", id, r, function)
                    .isEqualTo(shard)));
        }
    }

    @Test
    void partitionedIndexWithLargerRoutingNumShardsMatchesElasticsearchShrunkTablesOfBothEras() {
        // elastic/elasticsearch IndexRoutingTests#testPartitionedIndexShrunk: setRoutingNumShards(8), 4 shards,
        // routing_partition_size 3. Elasticsearch changed the table when IndexVersion.current() moved past
        // MOD_ROUTING_FUNCTION, so there are two: routing -> (id -> shard).
        // Before (e.g. the versions built with settings(Version.CURRENT)): floorMod(hash, 8) / 2.
        Map<String, Map<String, Integer>> legacy = Map.of(
                "a", Map.of("a_0", 1, "a_1", 2, "a_2", 2, "a_3", 2, "a_4", 1, "a_5", 2),
                "b", Map.of("b_0", 0, "b_1", 0, "b_2", 0, "b_3", 0, "b_4", 3, "b_5", 3),
                "c", Map.of("c_0", 1, "c_1", 1, "c_2", 0, "c_3", 0, "c_4", 0, "c_5", 1),
                "d", Map.of("d_0", 2, "d_1", 2, "d_2", 3, "d_3", 3, "d_4", 3, "d_5", 3));
        // After (commit 074fcb7421333a8346b7a0177563a29c10cf23a5, settings(IndexVersion.current())): floorMod(hash, 4).
        Map<String, Map<String, Integer>> modulo = Map.of(
                "a", Map.of("a_0", 2, "a_1", 0, "a_2", 0, "a_3", 0, "a_4", 3, "a_5", 0),
                "b", Map.of("b_0", 0, "b_1", 1, "b_2", 0, "b_3", 0, "b_4", 3, "b_5", 3),
                "c", Map.of("c_0", 3, "c_1", 3, "c_2", 1, "c_3", 1, "c_4", 1, "c_5", 3),
                "d", Map.of("d_0", 1, "d_1", 1, "d_2", 2, "d_3", 2, "d_4", 2, "d_5", 2));
        assertTable(routing(4, 8, 3, ROUTING_NUM_SHARDS), legacy);
        assertTable(routing(4, 8, 3, MODULO), modulo);
    }

    private static void assertTable(IndexRouting index, Map<String, Map<String, Integer>> table) {
        table.forEach((r, ids) -> ids.forEach((id, shard) -> assertThat(index.shardOf(id, r))
                .as("id %s routing %s, %s", id, r, index.function())
                .isEqualTo(shard)));
    }

    @Test
    void idOneLandsOnDifferentShardsBeforeAndAfterTheModuloRoutingChange() {
        // elastic/elasticsearch IndexRoutingTests#testSimpleRoutingPreAndPostModRoutingChange: _id "1" in a
        // 2-shard index goes to shard 1 with the current (modulo) function and to shard 0 in an index created
        // before MOD_ROUTING_FUNCTION with routing_num_shards 1024.
        assertThat(routing(2, 2, 1, MODULO).shardOf("1", null)).isEqualTo(1);
        assertThat(routing(2, 1024, 1, MODULO).shardOf("1", null)).isEqualTo(1);
        assertThat(routing(2, 1024, 1, ROUTING_NUM_SHARDS).shardOf("1", null)).isEqualTo(0);
    }

    @Test
    void customRoutingReplacesTheIdAsRoutingValue() {
        IndexRouting index = routing(5, 640, 1, ROUTING_NUM_SHARDS);
        for (int i = 0; i < 200; i++) {
            assertThat(index.shardOf("doc-" + i, "tenant-7")).isEqualTo(index.shardOf("tenant-7", null));
        }
        assertThat(index.shardOf("doc-1", null)).isEqualTo(Math.floorMod(Murmur3.hash("doc-1"), 640) / 128);
    }

    @Test
    void routingNumShardsOfIndicesCreatedBy8xAnd91SpreadDocumentsOverEveryShard() {
        // DESIGN.md "Verified on these machines": routing_num_shards 768 for 3 shards, 640 for 5, 1024 for 8,
        // 768 for 12. With those numbers the two functions really differ, so calibration matters.
        int[][] indices = {{3, 768}, {5, 640}, {8, 1024}, {12, 768}};
        for (int[] numbers : indices) {
            IndexRouting legacy = routing(numbers[0], numbers[1], 1, ROUTING_NUM_SHARDS);
            IndexRouting modulo = routing(numbers[0], numbers[1], 1, MODULO);
            Set<Integer> seen = new HashSet<>();
            int disagreements = 0;
            for (int i = 0; i < 2000; i++) {
                String id = "id-\u00e9-\uD83D\uDE00-" + i;
                int shard = legacy.shardOf(id, null);
                assertThat(shard).isBetween(0, numbers[0] - 1);
                seen.add(shard);
                if (shard != modulo.shardOf(id, null)) {
                    disagreements++;
                }
            }
            assertThat(seen)
                    .as("shards reached with %s", java.util.Arrays.toString(numbers))
                    .hasSize(numbers[0]);
            assertThat(disagreements)
                    .as("disagreements with %s", java.util.Arrays.toString(numbers))
                    .isGreaterThan(500);
        }
    }

    @Test
    void partitionedIndexAddsIdOffsetWithinPartition() {
        // routingNumShards == numberOfShards (how Elasticsearch's own testPartitionedIndex builds the index)
        // and MODULO indices: one routing value covers exactly routing_partition_size shards, the same ones a
        // search with that routing visits.
        for (RoutingFunction function : RoutingFunction.values()) {
            for (int routingNumShards : function == MODULO ? new int[] {12, 768} : new int[] {12}) {
                for (int partitionSize : new int[] {2, 3, 5}) {
                    IndexRouting index = routing(12, routingNumShards, partitionSize, function);
                    for (String r : new String[] {"user-1", "user-2", "\u4e2d\u6587", "\uD83D\uDE80"}) {
                        Set<Integer> shards = new HashSet<>();
                        for (int i = 0; i < 300; i++) {
                            String id = "doc-" + i;
                            int shard = index.shardOf(id, r);
                            int offset = Math.floorMod(Murmur3.hash(id), partitionSize);
                            assertThat(shard).isEqualTo(function.shard(Murmur3.hash(r) + offset, 12, routingNumShards));
                            shards.add(shard);
                        }
                        assertThat(shards)
                                .as("routing %s, %s", r, index)
                                .hasSize(partitionSize)
                                .isEqualTo(index.searchShards(r));
                    }
                }
            }
        }
    }

    @Test
    void partitionOffsetRarelyChangesTheShardWhenRoutingNumShardsIsLarger() {
        // Elasticsearch's own behaviour, reproduced on purpose (elastic/elasticsearch#48863, "index setting
        // routing_partition_size is ignored in ES version 7"): the offset (< partition size) is added to the
        // hash before floorMod(hash, routingNumShards) / factor, so with 768 virtual shards for 12 real ones
        // (factor 64) it only moves a routing value to the next shard when the hash sits at a block edge.
        IndexRouting index = routing(12, 768, 3, ROUTING_NUM_SHARDS);
        int singleShardRoutings = 0;
        for (int k = 0; k < 200; k++) {
            String r = "tenant-" + k;
            Set<Integer> shards = new HashSet<>();
            for (int i = 0; i < 50; i++) {
                shards.add(index.shardOf("doc-" + i, r));
            }
            assertThat(shards).isSubsetOf(index.searchShards(r));
            if (shards.size() == 1) {
                singleShardRoutings++;
            }
        }
        assertThat(singleShardRoutings).isGreaterThan(180);
    }

    @Test
    void partitionedIndexNeedsCustomRoutingAndId() {
        IndexRouting index = routing(6, 6, 2, ROUTING_NUM_SHARDS);
        assertThat(index.partitioned()).isTrue();
        assertThatThrownBy(() -> index.shardOf("doc", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("partitioned (routing_partition_size 2)")
                .hasMessageContaining("custom _routing");
        assertThatThrownBy(() -> index.shardOf(null, "r"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("_id");
    }

    @Test
    void documentWithoutIdOrRoutingHasNoPredictableShard() {
        assertThatThrownBy(() -> routing(3, 768, 1, ROUTING_NUM_SHARDS).shardOf(null, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("neither _id nor _routing");
        assertThat(routing(3, 768, 1, ROUTING_NUM_SHARDS).shardOf(null, "r")).isBetween(0, 2);
    }

    @Test
    void singleShardIndexAlwaysAnswersShardZero() {
        for (RoutingFunction function : RoutingFunction.values()) {
            IndexRouting index = routing(1, 1024, 1, function);
            for (int i = 0; i < 100; i++) {
                assertThat(index.shardOf("id-" + i, null)).isZero();
            }
        }
    }

    @Test
    void constructorSaysWhatIsWrong() {
        assertThatThrownBy(() -> routing(3, 1024, 1, ROUTING_NUM_SHARDS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("numberOfShards (3) must divide routingNumShards (1024) of index [test]");
        assertThat(routing(3, 1024, 1, MODULO).numberOfShards()).isEqualTo(3); // MODULO does not need it
        assertThatThrownBy(() -> routing(0, 1, 1, MODULO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("numberOfShards of index [test] must be at least 1");
        assertThatThrownBy(() -> routing(2, 0, 1, MODULO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("routingNumShards of index [test] must be at least 1");
        assertThatThrownBy(() -> routing(2, 2, 0, MODULO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("routingPartitionSize of index [test] must be at least 1");
        assertThatThrownBy(() -> routing(2, 2, 1, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("routing function");
        assertThatThrownBy(() -> new IndexRouting("", 2, 2, 1, MODULO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("index name");
    }
}
