package io.kes.connector.bulk;

import io.kes.connector.cluster.StatusPolicy.Action;
import io.kes.connector.routing.PredictedShard;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records what a response's items did: each acknowledged item in its bulk's epoch (what the
 * checkpoint fence checks: the index it is stored in, its shard, the primary term that applied
 * it), the writer's counters, and a warning for a write that lost to a version conflict. Changes
 * no bulk and no hold ({@link BulkLifecycle} releases the ids). Task thread only.
 */
final class Acknowledgements {

    private static final Logger LOG = LoggerFactory.getLogger(Acknowledgements.class);

    private final WriterRouting predictor;
    private final BulkMetrics metrics;
    private final VersionConflicts versionConflicts = new VersionConflicts();

    Acknowledgements(WriterRouting predictor, BulkMetrics metrics) {
        this.predictor = predictor;
        this.metrics = metrics;
    }

    void record(BulkInFlight bulk, BulkBody sent, BulkResponse response, ItemOutcomes outcomes) {
        String lostToAConflict = versionConflicts.check(sent, response);
        if (lostToAConflict != null) {
            LOG.warn("{}", lostToAConflict);
        }
        // A single-shard bulk's items mostly share where they landed, their prediction and their
        // term (the answer's repeated items share the index's String), and recording the same again
        // changes nothing: record each run once.
        String lastStoredIn = null;
        PredictedShard lastPrediction = null;
        long lastTerm = 0;
        for (int i = 0; i < response.size(); i++) {
            if (outcomes.byItem[i] != Action.DONE) {
                continue;
            }
            String storedIn = response.index[i] != null ? response.index[i] : sent.index(i);
            PredictedShard prediction = sent.prediction(i);
            long term = response.appliedTerm(i, sent.opType(i));
            if (storedIn != lastStoredIn || prediction != lastPrediction || term != lastTerm) {
                bulk.epoch.acknowledged.record(storedIn, predictor.fenceAs(prediction, storedIn), term);
                lastStoredIn = storedIn;
                lastPrediction = prediction;
                lastTerm = term;
            }
            if (!prediction.storedAsPredicted(response.index[i])
                    && predictor.movedByPipeline(sent.operation(i), prediction, response.index[i])) {
                metrics.docsMovedByPipeline.inc();
            }
        }
        metrics.docsOut.inc(outcomes.succeeded);
        metrics.replaysAccepted.inc(outcomes.replaysAccepted);
        metrics.retriesRejected.inc(outcomes.retriesRejected);
        metrics.retriesUnavailable.inc(outcomes.retriesUnavailable);
    }
}
