package io.kes.connector.routing;

import static io.kes.connector.routing.RoutingFunction.MODULO;
import static io.kes.connector.routing.RoutingFunction.ROUTING_NUM_SHARDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kes.connector.routing.RoutingCalibrator.Probe;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RoutingCalibratorTest {

    /** Numbers from DESIGN.md: routing_num_shards of 3/5/8/12-shard indices created by 8.x and 9.1. */
    private static final int[][] ES_8_AND_9_1_INDICES = {{3, 768}, {5, 640}, {8, 1024}, {12, 768}};

    /** What _search_shards?routing=v would answer for each probe value, on an index that routes like {@code node}. */
    private static List<Probe> ask(IndexRouting node, List<String> values) {
        return values.stream().map(v -> new Probe(v, node.searchShards(v))).toList();
    }

    @Test
    void calibratorPicksRoutingNumShardsForIndicesCreatedBefore9xModRouting() {
        for (int[] n : ES_8_AND_9_1_INDICES) {
            IndexRouting node = new IndexRouting("logs", n[0], n[1], 1, ROUTING_NUM_SHARDS);
            List<Probe> probes = ask(node, RoutingCalibrator.probeValues(8, n[0], n[1]));
            assertThat(RoutingCalibrator.calibrate("logs", n[0], n[1], 1, probes))
                    .contains(node);
        }
    }

    @Test
    void calibratorPicksModuloWhenProbesDisagreeWithLegacy() {
        for (int[] n : ES_8_AND_9_1_INDICES) {
            IndexRouting node = new IndexRouting("logs", n[0], n[1], 1, MODULO);
            List<Probe> probes = ask(node, RoutingCalibrator.probeValues(8, n[0], n[1]));
            assertThat(RoutingCalibrator.calibrate("logs", n[0], n[1], 1, probes))
                    .contains(node);
        }
    }

    @Test
    void calibratorTellsTheFunctionsApartWithElasticsearchsOwnIdOneVector() {
        // elastic/elasticsearch IndexRoutingTests#testSimpleRoutingPreAndPostModRoutingChange: "1" goes to
        // shard 1 of a 2-shard modulo index and to shard 0 with routing_num_shards 1024.
        assertThat(RoutingCalibrator.calibrate("i", 2, 1024, 1, List.of(Probe.of("1", 1)))
                        .map(IndexRouting::function))
                .contains(MODULO);
        assertThat(RoutingCalibrator.calibrate("i", 2, 1024, 1, List.of(Probe.of("1", 0)))
                        .map(IndexRouting::function))
                .contains(ROUTING_NUM_SHARDS);
    }

    @Test
    void calibratorGivesUpWhenNoFunctionMatches() {
        // answers from an index that routes some other way: every shard shifted by one
        IndexRouting legacy = new IndexRouting("x", 5, 640, 1, ROUTING_NUM_SHARDS);
        List<Probe> shifted = RoutingCalibrator.probeValues(8, 5, 640).stream()
                .map(v -> Probe.of(v, (legacy.shardOf(null, v) + 1) % 5))
                .toList();
        assertThat(RoutingCalibrator.calibrate("x", 5, 640, 1, shifted)).isEmpty();

        // one probe per function, contradicting each other
        String v = RoutingCalibrator.probeValues(1, 5, 640).get(0);
        int legacyShard = legacy.shardOf(null, v);
        int moduloShard = new IndexRouting("x", 5, 640, 1, MODULO).shardOf(null, v);
        assertThat(legacyShard).isNotEqualTo(moduloShard);
        String w = RoutingCalibrator.probeValues(2, 5, 640).get(1);
        int moduloShardOfW = new IndexRouting("x", 5, 640, 1, MODULO).shardOf(null, w);
        assertThat(RoutingCalibrator.calibrate(
                        "x", 5, 640, 1, List.of(Probe.of(v, legacyShard), Probe.of(w, moduloShardOfW))))
                .isEmpty();

        // a shard the index does not have
        assertThat(RoutingCalibrator.calibrate("x", 5, 640, 1, List.of(Probe.of(v, 7))))
                .isEmpty();
    }

    @Test
    void calibratorPrefersRoutingNumShardsWhenBothFunctionsAreTheSame() {
        // 1 shard: every hash goes to shard 0 either way; routingNumShards == numberOfShards: identical functions
        IndexRouting oneShard = new IndexRouting("one", 1, 1024, 1, MODULO);
        assertThat(RoutingCalibrator.calibrate(
                        "one", 1, 1024, 1, ask(oneShard, RoutingCalibrator.probeValues(4, 1, 1024))))
                .map(IndexRouting::function)
                .contains(ROUTING_NUM_SHARDS);
        IndexRouting equal = new IndexRouting("eq", 6, 6, 1, MODULO);
        assertThat(RoutingCalibrator.calibrate("eq", 6, 6, 1, ask(equal, RoutingCalibrator.probeValues(4, 6, 6))))
                .map(IndexRouting::function)
                .contains(ROUTING_NUM_SHARDS);
        assertThat(RoutingCalibrator.calibrate("eq", 6, 6, 1, List.of()))
                .map(IndexRouting::function)
                .contains(ROUTING_NUM_SHARDS);
    }

    @Test
    void calibratorConsidersOnlyModuloWhenShardCountDoesNotDivideRoutingNumShards() {
        IndexRouting node = new IndexRouting("odd", 3, 1024, 1, MODULO);
        List<Probe> probes = ask(node, RoutingCalibrator.probeValues(6, 3, 1024));
        assertThat(RoutingCalibrator.calibrate("odd", 3, 1024, 1, probes)).contains(node);
        assertThat(RoutingCalibrator.calibrate("odd", 3, 1024, 1, List.of(Probe.of("a", 5))))
                .isEmpty();
    }

    @Test
    void calibratorMatchesPartitionedIndicesOnTheWholeSetOfSearchShards() {
        // _search_shards on a partitioned index lists every shard the routing value may be on (fewer than the
        // partition size when, as elastic/elasticsearch#48863 describes, the offsets stay in one shard)
        for (RoutingFunction function : RoutingFunction.values()) {
            IndexRouting node = new IndexRouting("p", 12, 768, 3, function);
            List<Probe> probes = ask(node, RoutingCalibrator.probeValues(8, 12, 768));
            assertThat(probes).allSatisfy(p -> assertThat(p.shards()).hasSizeBetween(1, 3));
            Optional<IndexRouting> calibrated = RoutingCalibrator.calibrate("p", 12, 768, 3, probes);
            assertThat(calibrated).contains(node);
            assertThat(calibrated.get().routingPartitionSize()).isEqualTo(3);
        }
    }

    @Test
    void probeValuesDistinguishTheFunctionsWherePossible() {
        for (int[] n : ES_8_AND_9_1_INDICES) {
            List<String> values = RoutingCalibrator.probeValues(10, n[0], n[1]);
            assertThat(values).hasSize(10).doesNotHaveDuplicates().allSatisfy(v -> {
                assertThat(v).startsWith(RoutingCalibrator.PROBE_PREFIX);
                int hash = Murmur3.hash(v);
                assertThat(ROUTING_NUM_SHARDS.shard(hash, n[0], n[1])).isNotEqualTo(MODULO.shard(hash, n[0], n[1]));
            });
            assertThat(RoutingCalibrator.probeValues(10, n[0], n[1]))
                    .as("deterministic")
                    .isEqualTo(values);
        }
    }

    @Test
    void probeValuesFallBackToPlainValuesWhenTheFunctionsCoincide() {
        assertThat(RoutingCalibrator.probeValues(3, 1, 1024))
                .containsExactly("kes-probe-0", "kes-probe-1", "kes-probe-2");
        assertThat(RoutingCalibrator.probeValues(3, 6, 6)).containsExactly("kes-probe-0", "kes-probe-1", "kes-probe-2");
        assertThat(RoutingCalibrator.probeValues(2, 3, 1024)).containsExactly("kes-probe-0", "kes-probe-1");
        assertThat(RoutingCalibrator.probeValues(0, 3, 768)).isEmpty();
        assertThatThrownBy(() -> RoutingCalibrator.probeValues(-1, 3, 768))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void probeValuesTopUpWithPlainValuesWhenTooFewCandidatesDisagree() {
        // 2 shards, routing_num_shards 4: legacy = floorMod(h, 4) / 2, modulo = floorMod(h, 2); they disagree
        // for half of the hashes, so asking for many probes still yields distinct values of the right count
        List<String> values = RoutingCalibrator.probeValues(500, 2, 4);
        assertThat(values).hasSize(500).doesNotHaveDuplicates();
    }

    @Test
    void probeRejectsMissingAnswers() {
        assertThatThrownBy(() -> new Probe("v", Set.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one shard");
        assertThatThrownBy(() -> new Probe(null, Set.of(1))).isInstanceOf(IllegalArgumentException.class);
    }
}
