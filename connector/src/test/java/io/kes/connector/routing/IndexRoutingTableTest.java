package io.kes.connector.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.cluster.ClusterMetadataClient;
import io.kes.connector.cluster.IndexMetadata;
import io.kes.connector.fence.AcknowledgedWrites;
import io.kes.connector.testing.CannedElasticsearch;
import io.kes.connector.testing.CannedElasticsearch.Answer;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.elasticsearch.client.RestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The routing table on canned answers in the shapes Elasticsearch gives (a fake is fine for the
 * table's decisions; the ITs prove a real node's behaviour): what a user without the index
 * privilege {@code view_index_metadata} gets, and index pipelines that change after calibration.
 */
class IndexRoutingTableTest {

    /** Two shards with unequal primary terms, as after a node restart moved one primary. */
    private static final String UNEQUAL_TERMS =
            "{\"metadata\":{\"indices\":{\"idx\":{\"settings\":{\"index\":{\"number_of_shards\":\"2\","
                    + "\"uuid\":\"u1\"}},\"routing_num_shards\":2,\"primary_terms\":{\"0\":1,\"1\":3}}}}}";

    private static final String REFUSED =
            "{\"error\":{\"type\":\"security_exception\",\"reason\":\"action [indices:admin/get] is "
                    + "unauthorized for user [kes]\"},\"status\":403}";
    private static final String SETS_ROUTING =
            "{\"p\":{\"processors\":[{\"set\":{\"field\":\"_routing\",\"value\":\"{{user}}\"}}]}}";
    private static final String HARMLESS = "{\"p\":{\"processors\":[{\"set\":{\"field\":\"seen\",\"value\":true}}]}}";

    /** Path → body; a path with no answer is refused with 403. */
    private final Map<String, String> answers = new ConcurrentHashMap<>();

    /** Path → an error answer, asked before {@link #answers}. */
    private final Map<String, Answer> errors = new ConcurrentHashMap<>();

    /** Every path asked, in order. */
    private final List<String> asked = new java.util.concurrent.CopyOnWriteArrayList<>();

    private final AtomicLong clock = new AtomicLong(1_000_000);
    private CannedElasticsearch es;
    private RestClient client;

    @BeforeEach
    void start() throws IOException {
        es = new CannedElasticsearch(
                path -> {
                    asked.add(path);
                    if (errors.containsKey(path)) {
                        return errors.get(path);
                    }
                    return answers.containsKey(path) ? Answer.ok(answers.get(path)) : null;
                },
                new Answer(403, REFUSED));
        client = es.client();
    }

    @AfterEach
    void stop() throws IOException {
        es.close();
    }

    /** A one-shard index (calibrated without probes), with {@code defaultPipeline} when not null. */
    private static String oneShard(String defaultPipeline) {
        return "{\"metadata\":{\"indices\":{\"idx\":{\"settings\":{\"index\":{\"number_of_shards\":\"1\",\"uuid\":\"u1\""
                + (defaultPipeline == null ? "" : ",\"default_pipeline\":\"" + defaultPipeline + "\"")
                + "}},\"routing_num_shards\":1,\"primary_terms\":{\"0\":1}}}}}";
    }

    /**
     * Issue 27 item 5: without the layout, writes were held against the lowest term written,
     * applied to every shard: a shard whose term was already higher failed every checkpoint, and
     * the job restarted for ever.
     */
    @Test
    void withoutViewIndexMetadataTheLayoutStillHoldsEachShardToItsOwnTermSoUnequalTermsDoNotFailEveryFence()
            throws IOException {
        answers.put("/_cluster/state/metadata/idx", UNEQUAL_TERMS);
        ClusterMetadataClient metadata = new ClusterMetadataClient(client);
        IndexRoutingTable table = new IndexRoutingTable(metadata, clock::get);

        Optional<IndexLayout> layout = table.layoutFor("idx");

        assertThat(layout)
                .as("the primary terms come from _cluster/state, which cluster monitor shows")
                .isPresent();
        assertThat(layout.get().routing())
                .as("no calibration without _search_shards: documents go in ordinary bulks")
                .isNull();
        AcknowledgedWrites written = new AcknowledgedWrites();
        written.record("idx", layout.get().anyShard(), 1); // applied on shard 0 under its term 1
        Map<String, IndexMetadata> now = metadata.indices(List.of("idx"));
        assertThat(written.firstMovedShard(now)).as("no primary moved").isNull();
    }

    /**
     * A name is read again every minute or so: while nothing changed, its layout stays the very
     * object the routers referenced, so their documents' predictions resolve in the writers
     * ({@link ShardPredictor#resolve}); a moved primary term makes a new one (the fence's snapshot).
     */
    @Test
    void aLayoutReadAgainUnchangedStaysTheSameObjectAndAMovedTermMakesANewOne() {
        answers.put("/_cluster/state/metadata/idx", UNEQUAL_TERMS);
        IndexRoutingTable table = new IndexRoutingTable(new ClusterMetadataClient(client), clock::get);
        IndexLayout first = table.layoutFor("idx").orElseThrow();

        clock.addAndGet(TargetNames.INDEX_TTL_MILLIS + 1);
        assertThat(table.layoutFor("idx").orElseThrow()).isSameAs(first);

        answers.put("/_cluster/state/metadata/idx", UNEQUAL_TERMS.replace("\"1\":3", "\"1\":4"));
        clock.addAndGet(TargetNames.INDEX_TTL_MILLIS + 1);
        IndexLayout after = table.layoutFor("idx").orElseThrow();
        assertThat(after).isNotSameAs(first);
        assertThat(after.primaryTerm(1)).isEqualTo(4);
    }

    /** Issue 27 item 4: index pipelines were read at calibration only; one added later went unseen. */
    @Test
    void aDefaultPipelineAddedAfterCalibrationThatSetsRoutingEndsThePredictionAtTheNextRead() {
        answers.put("/_cluster/state/metadata/idx", oneShard(null));
        answers.put("/_ingest/pipeline/p", SETS_ROUTING);
        IndexRoutingTable table = new IndexRoutingTable(new ClusterMetadataClient(client), clock::get);
        IndexLayout before = table.layoutFor("idx").orElseThrow();
        assertThat(before.routing()).isNotNull();

        answers.put("/_cluster/state/metadata/idx", oneShard("p"));
        clock.addAndGet(TargetNames.INDEX_TTL_MILLIS + 1);
        IndexLayout after = table.layoutFor("idx").orElseThrow();

        assertThat(after.routing())
                .as("a pipeline that sets _routing: no prediction")
                .isNull();
        assertThat(after.generation())
                .as("a new generation: the writers predict again")
                .isNotSameAs(before.generation());
        assertThat(table.unpredictableIndices()).isEqualTo(1);
    }

    /** Issue 27 item 4: the same default pipeline, redefined to set _routing after calibration. */
    @Test
    void aDefaultPipelineRedefinedAfterCalibrationToSetRoutingEndsThePredictionWithinAMinute() {
        answers.put("/_cluster/state/metadata/idx", oneShard("p"));
        answers.put("/_ingest/pipeline/p", HARMLESS);
        IndexRoutingTable table = new IndexRoutingTable(new ClusterMetadataClient(client), clock::get);
        IndexLayout before = table.layoutFor("idx").orElseThrow();
        assertThat(before.routing()).isNotNull();

        answers.put("/_ingest/pipeline/p", SETS_ROUTING);
        clock.addAndGet(TargetNames.INDEX_TTL_MILLIS + 1);
        IndexLayout after = table.layoutFor("idx").orElseThrow();

        assertThat(after.routing()).isNull();
        assertThat(after.generation()).isNotSameAs(before.generation());
    }

    /**
     * Issue 27 item 13: the warning about documents moved by a pipeline names the index's
     * pipelines from its settings; those are read for the one warning, not for every moved
     * document (a GET per document of a busy index).
     */
    @Test
    void documentsMovedByAPipelineReadTheIndexSettingsOnlyForTheOneWarning() {
        answers.put("/_cluster/state/metadata/idx", oneShard(null));
        answers.put(
                "/idx/_settings/index.default_pipeline,index.final_pipeline",
                "{\"idx\":{\"settings\":{\"index.default_pipeline\":\"p\"}}}");
        IndexRoutingTable table = new IndexRoutingTable(new ClusterMetadataClient(client), clock::get);
        IndexLayout layout = table.layoutFor("idx").orElseThrow();

        for (int i = 0; i < 3; i++) {
            table.documentMoved(layout, "other", null);
        }

        assertThat(asked).filteredOn(path -> path.contains("/_settings")).hasSize(1);
        assertThat(table.unpredictableIndices()).isEqualTo(1);
    }

    /**
     * Issue 27 item 12: a background read of a name the table forgot meanwhile would never be
     * taken; it is dropped with the name, so reads of date-named indices do not pile up.
     */
    @Test
    void aBackgroundReadOfANameTheTableForgotIsDroppedWithIt() throws Exception {
        answers.put("/_cluster/state/metadata/idx", oneShard(null));
        answers.put("/_cluster/state/metadata/other", oneShard(null).replace("\"idx\"", "\"other\""));
        List<Runnable> refresher = new java.util.ArrayList<>(); // reads that never run
        IndexRoutingTable table = new IndexRoutingTable(new ClusterMetadataClient(client), clock::get, refresher::add);
        BackgroundReads<String, ?> reads = table.layoutReads;
        table.layoutFor("idx");
        clock.addAndGet(TargetNames.INDEX_TTL_MILLIS + 1);
        table.layoutFor("idx"); // expired: read again in the background
        assertThat(refresher).hasSize(1);

        clock.addAndGet(IndexRoutingTable.FORGET_AFTER_MILLIS + 1);
        table.layoutFor("other"); // its install sweeps: idx is forgotten

        assertThat(reads.running("idx")).isFalse();
    }

    private static final Answer ELECTION = new Answer(
            503, "{\"error\":{\"type\":\"master_not_discovered_exception\",\"reason\":null},\"status\":503}");

    /**
     * Issue 37 item 6: a default pipeline that could not be read at calibration (a 503 while the
     * cluster elects a master) counted as "moves documents" for as long as the calibration lived:
     * the index's single-shard bulks were off until the job restarted.
     */
    @Test
    void aDefaultPipelineThatCouldNotBeReadAtCalibrationIsReadAgainLater() {
        answers.put("/_cluster/state/metadata/idx", oneShard("p"));
        answers.put("/_ingest/pipeline/p", HARMLESS);
        errors.put("/_ingest/pipeline/p", ELECTION);
        IndexRoutingTable table = new IndexRoutingTable(new ClusterMetadataClient(client), clock::get);
        IndexLayout during = table.layoutFor("idx").orElseThrow();
        assertThat(during.routing())
                .as("not known while the pipeline cannot be read")
                .isNull();

        errors.clear();
        clock.addAndGet(TargetNames.INDEX_TTL_MILLIS + 1);
        IndexLayout after = table.layoutFor("idx").orElseThrow();

        assertThat(after.routing())
                .as("the pipeline read again once readable: it only enriches")
                .isNotNull();
        assertThat(after.generation()).isNotSameAs(during.generation());
    }

    /** Issue 37 item 6: the same when the once-a-minute re-check of a calibrated index's pipeline fails. */
    @Test
    void aDefaultPipelineThatCouldNotBeReadAtItsRecheckIsReadAgainLater() {
        answers.put("/_cluster/state/metadata/idx", oneShard("p"));
        answers.put("/_ingest/pipeline/p", HARMLESS);
        IndexRoutingTable table = new IndexRoutingTable(new ClusterMetadataClient(client), clock::get);
        assertThat(table.layoutFor("idx").orElseThrow().routing()).isNotNull();

        errors.put("/_ingest/pipeline/p", ELECTION);
        clock.addAndGet(TargetNames.INDEX_TTL_MILLIS + 1);
        assertThat(table.layoutFor("idx").orElseThrow().routing())
                .as("not known while the pipeline cannot be read")
                .isNull();

        errors.clear();
        for (int minute = 0; minute < 2; minute++) {
            clock.addAndGet(TargetNames.INDEX_TTL_MILLIS + 1);
            table.layoutFor("idx");
        }
        assertThat(table.layoutFor("idx").orElseThrow().routing())
                .as("the pipeline read again once readable")
                .isNotNull();
    }

    /**
     * Issue 37 item 2: documents an ingest pipeline moved to another index were fenced against the
     * lowest term they were applied under, on every shard of that index; once its shards' terms
     * differed (any failover in its life), every checkpoint failed and the job restarted for ever.
     * They are fenced against the landed index's own layout, read when it first appears.
     */
    @Test
    void documentsAPipelineMovedToAnIndexWithUnequalPrimaryTermsAreFencedShardByShard() throws IOException {
        answers.put("/_cluster/state/metadata/idx", oneShard("p"));
        answers.put("/_ingest/pipeline/p", HARMLESS);
        answers.put("/_cluster/state/metadata/dst", UNEQUAL_TERMS.replace("\"idx\"", "\"dst\""));
        ClusterMetadataClient metadata = new ClusterMetadataClient(client);
        ShardPredictor predictor = new ShardPredictor(new IndexRoutingTable(metadata, clock::get));
        PredictedShard predicted = predictor.predict(
                io.kes.connector.DocumentOperation.delete("idx", "d1")); // any operation of idx with an id

        AcknowledgedWrites written = new AcknowledgedWrites();
        // stored in dst[0] under its term 1; dst[1] has had term 3 all along
        written.record("dst", predictor.fenceAs(predicted, "dst"), 1);

        assertThat(written.firstMovedShard(metadata.indices(List.of("dst"))))
                .as("no primary of dst moved")
                .isNull();
    }

    /** The landed index's layout is the one read when it first appeared, not a later one: a failover after it fails the fence. */
    @Test
    void aFailoverInTheLandedIndexAfterItFirstAppearedFailsTheFence() throws IOException {
        answers.put("/_cluster/state/metadata/idx", oneShard(null));
        answers.put("/_cluster/state/metadata/dst", UNEQUAL_TERMS.replace("\"idx\"", "\"dst\""));
        ClusterMetadataClient metadata = new ClusterMetadataClient(client);
        ShardPredictor predictor = new ShardPredictor(new IndexRoutingTable(metadata, clock::get));
        PredictedShard predicted = predictor.predict(io.kes.connector.DocumentOperation.delete("idx", "d1"));
        predictor.fenceAs(predicted, "dst"); // first appears

        answers.put(
                "/_cluster/state/metadata/dst",
                UNEQUAL_TERMS.replace("\"idx\"", "\"dst\"").replace("\"1\":3", "\"1\":4"));
        clock.addAndGet(TargetNames.INDEX_TTL_MILLIS + 1);
        AcknowledgedWrites written = new AcknowledgedWrites();
        written.record("dst", predictor.fenceAs(predicted, "dst"), 3);

        assertThat(written.firstMovedShard(metadata.indices(List.of("dst"))))
                .as("dst[1] moved from term 3 to 4 while it may have held the write")
                .contains("dst[1]");
    }
}
