package io.kes.connector.bulk;

import io.kes.connector.DocumentOperation;
import io.kes.connector.cluster.StatusPolicy.Action;
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
        for (int i = 0; i < response.size(); i++) {
            if (outcomes.byItem[i] != Action.DONE) {
                continue;
            }
            DocumentOperation op = sent.operation(i);
            String storedIn = response.index[i] != null ? response.index[i] : op.index();
            bulk.epoch.acknowledged.record(
                    storedIn, predictor.fenceAs(sent.prediction(i), storedIn), response.appliedTerm(i, op.opType()));
            if (predictor.movedByPipeline(op, sent.prediction(i), response.index[i])) {
                metrics.docsMovedByPipeline.inc();
            }
        }
        metrics.docsOut.inc(outcomes.succeeded);
        metrics.replaysAccepted.inc(outcomes.replaysAccepted);
        metrics.retriesRejected.inc(outcomes.retriesRejected);
        metrics.retriesUnavailable.inc(outcomes.retriesUnavailable);
    }
}
