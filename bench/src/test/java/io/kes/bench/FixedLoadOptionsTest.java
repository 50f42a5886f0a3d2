package io.kes.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FixedLoadOptionsTest {

    @Test
    void defaultsAreTheIssuesLoadEveryModeWithAndWithoutTheStallAndADatedResultsFolder() {
        BenchOptions o = BenchOptions.parse(new String[] {"--scenario", "fixed-load", "--es-version", "8.19.21"});

        assertThat(o.rate).isEqualTo(3_000);
        assertThat(o.seconds).isEqualTo(60);
        assertThat(o.rounds).isEqualTo(3);
        assertThat(o.modes).isEqualTo(FixedLoadScenario.DEFAULT_MODES);
        assertThat(o.stalls).containsExactly(true, false);
        assertThat(o.out.getFileName().toString()).startsWith("fixed-load-");
    }

    @Test
    void theDefaultShapeIsSixShardsAndTwoWritersAsThePublishedRuns() {
        BenchOptions o = BenchOptions.parse(new String[] {"--scenario", "fixed-load", "--out", "x"});

        assertThat(o.shards).isEqualTo(6);
        assertThat(o.parallelism).isEqualTo(2);
        assertThat(o.partitions).isEqualTo(6);
        assertThat(FixedLoadReport.shape(o))
                .isEqualTo("3,000 records/s for 60 s, 6 shards (refresh 1s), 2 writers, 6 partitions");
    }

    @Test
    void shardsAndWritersSetTheIndexAndTheJobAndEveryWriterGetsAPartition() {
        BenchOptions o = BenchOptions.parse(new String[] {
            "--scenario", "fixed-load", "--shards", "48", "--writers", "8", "--rate", "500", "--out", "x"
        });

        assertThat(o.shards).isEqualTo(48);
        assertThat(o.parallelism).isEqualTo(8);
        assertThat(o.partitions).isEqualTo(8);
        assertThat(FixedLoadReport.shape(o))
                .startsWith("500 records/s for 60 s, 48 shards")
                .contains("8 writers");
    }

    @Test
    void givenPartitionsStayAsGiven() {
        BenchOptions o = BenchOptions.parse(
                new String[] {"--scenario", "fixed-load", "--writers", "8", "--partitions", "4", "--out", "x"});

        assertThat(o.partitions).isEqualTo(4);
    }

    @Test
    void theStalledNodesShareOfPrimariesIsTheShardsSpreadOverThreeNodes() {
        assertThat(FixedLoadRuns.primariesPerNode(6)).isEqualTo(2);
        assertThat(FixedLoadRuns.primariesPerNode(48)).isEqualTo(16);
        assertThat(FixedLoadRuns.primariesPerNode(4)).isEqualTo(2);
    }

    @Test
    void variantsAreEveryModeTimesEveryStallSetting() {
        BenchOptions o = BenchOptions.parse(new String[] {
            "--scenario", "fixed-load", "--modes", "kes,kes-mixed", "--stall", "on", "--out", "x", "--rounds", "1"
        });

        assertThat(new FixedLoadScenario(o, null).variants())
                .containsExactly(
                        new FixedLoadScenario.Variant("kes", true), new FixedLoadScenario.Variant("kes-mixed", true));
        assertThat(o.out).isEqualTo(Path.of("x"));
    }

    @Test
    void eachKesModeAddsItsOwnBulkSettingsBeforeTheUsersOnes() {
        assertThat(FixedLoadScenario.bulkSettings("kes", "")).isEmpty();
        assertThat(FixedLoadScenario.bulkSettings("kes-mixed", "")).isEqualTo("shard_grouping: false");
        assertThat(FixedLoadScenario.bulkSettings("kes-linger", "topology: keyed"))
                .isEqualTo("coalesce: 1s, topology: keyed");
        assertThat(List.of(FixedLoadScenario.bulkSettings("kes", "topology: keyed")))
                .containsExactly("topology: keyed");
    }

    @Test
    void theEagerFetchModeGivesKesTheConsumersOwnFetchDefaultsThroughKafkaProperties(@TempDir Path dir)
            throws Exception {
        Path config = KesProcessRuns.writeConfig(
                dir,
                List.of("http://127.0.0.1:9200"),
                "127.0.0.1:9092",
                "t",
                "i",
                2,
                false,
                FixedLoadScenario.bulkSettings("kes-eager-fetch", ""),
                "index: i",
                FixedLoadScenario.kafkaProperties("kes-eager-fetch"));

        assertThat(Files.readString(config))
                .contains("properties: {fetch.min.bytes: 1, fetch.max.wait.ms: 500}")
                .doesNotContain("bulk:");
        assertThat(FixedLoadScenario.kafkaProperties("kes")).isEmpty();
    }
}
