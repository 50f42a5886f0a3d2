package io.kes.connector.routing;

import io.kes.connector.cluster.ClusterMetadataClient;
import io.kes.connector.cluster.IndexMetadata;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.elasticsearch.client.ResponseException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calibrates one concrete index against the cluster: an index that routes on document fields, or
 * whose default or final ingest pipeline may move documents, has no routing; otherwise
 * Elasticsearch tells where a few probe routing values go ({@code _search_shards}) and the routing
 * function that agrees with all of them is kept ({@link RoutingCalibrator}). Runs on any thread
 * and keeps nothing: {@link Calibrations} keeps what it finds.
 */
final class IndexCalibrator {

    /** Same logger as before the table was split, so that log settings keep working. */
    private static final Logger LOG = LoggerFactory.getLogger(IndexRoutingTable.class);

    static final int PROBES = 8;

    /**
     * What a calibration found: the routing, or why there is none; {@code unreadable}: none only
     * because a pipeline could not be read.
     */
    record Outcome(IndexRouting routing, String unpredictableWhy, boolean unreadable) {
        static Outcome routes(IndexRouting routing) {
            return new Outcome(routing, null, false);
        }

        static Outcome unpredictable(String why) {
            return new Outcome(null, why, false);
        }
    }

    private final ClusterMetadataClient metadata;
    private final PipelineVerdicts pipelines;

    IndexCalibrator(ClusterMetadataClient metadata, PipelineVerdicts pipelines) {
        this.metadata = metadata;
        this.pipelines = pipelines;
    }

    /**
     * Why {@code index} cannot be predicted whatever the probes say (empty: probe it): it routes on
     * document fields, or one of its index pipelines may move documents (by {@code verdicts}, read
     * now: a calibration must not trust a verdict older than the index).
     */
    static Optional<Outcome> unpredictableWithoutProbes(
            IndexMetadata index, Function<String, PipelineVerdicts.Verdict> verdicts) {
        if (!index.routedByDocument()) {
            return Optional.of(Outcome.unpredictable(
                    "it routes on document fields (time_series, routing_path or logsdb sort-field routing)"));
        }
        for (String pipeline : index.indexPipelines()) {
            PipelineVerdicts.Verdict verdict = verdicts.apply(pipeline);
            if (verdict.movesDocuments()) {
                return Optional.of(new Outcome(
                        null,
                        verdict.why().get() + " (index.default_pipeline or index.final_pipeline), so Elasticsearch"
                                + " may put its documents on other shards than predicted",
                        verdict.unreadable()));
            }
        }
        return Optional.empty();
    }

    /**
     * Calibrates {@code index}, the write index of {@code name}.
     *
     * @throws RuntimeException when the cluster could not be read (other than a 403, which leaves the index without routing)
     */
    Outcome calibrate(String name, IndexMetadata index) {
        String concrete = index.name();
        try {
            Optional<Outcome> unpredictable = unpredictableWithoutProbes(index, pipelines::readNow);
            if (unpredictable.isPresent()) {
                return unpredictable.get();
            }
            List<RoutingCalibrator.Probe> probes = new ArrayList<>();
            if (index.numberOfShards() > 1) {
                for (String routing :
                        RoutingCalibrator.probeValues(PROBES, index.numberOfShards(), index.routingNumShards())) {
                    probes.add(new RoutingCalibrator.Probe(routing, metadata.shardsForRouting(concrete, routing)));
                }
            }
            Optional<IndexRouting> routing = RoutingCalibrator.calibrate(
                    concrete, index.numberOfShards(), index.routingNumShards(), index.routingPartitionSize(), probes);
            if (routing.isEmpty()) {
                return Outcome.unpredictable(
                        "no known routing function matches where Elasticsearch puts probe values " + probes);
            }
            LOG.info(
                    "Routing of {} (written as '{}'): {} shards, routing_num_shards {}, partition size {}, {}",
                    concrete,
                    name,
                    index.numberOfShards(),
                    index.routingNumShards(),
                    index.routingPartitionSize(),
                    routing.get().function());
            return Outcome.routes(routing.get());
        } catch (ResponseException e) {
            if (e.getResponse().getStatusLine().getStatusCode() == 403) {
                // The layout (primary terms from _cluster/state) still serves: the fence then holds
                // each shard to its own term. Without it, writes would be held against the lowest
                // term written, and an index whose shards' terms differ would fail every checkpoint.
                return Outcome.unpredictable("kes's user or API key may not read its routing (HTTP 403 on "
                        + "_search_shards: grant the index privilege 'view_index_metadata' for single-shard bulks)");
            }
            throw new RuntimeException("calibrating " + concrete + " failed: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new RuntimeException("calibrating " + concrete + " failed: " + e.getMessage(), e);
        }
    }
}
