package io.kes.connector.bulk;

import io.kes.connector.FailedOperation;
import io.kes.connector.FailureHandler;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands documents that will not be written to the {@link FailureHandler}, counted and, for a data
 * stream's failure store, warned about. A handler that cannot take them (a dead-letter send
 * failed) fails the job, since they would be lost: each method returns that failure, or null.
 */
final class FailureHandOver {

    private static final Logger LOG = LoggerFactory.getLogger(FailureHandOver.class);

    private final FailureHandler failureHandler;
    private final BulkMetrics metrics;

    FailureHandOver(FailureHandler failureHandler, BulkMetrics metrics) {
        this.failureHandler = failureHandler;
        this.metrics = metrics;
    }

    /** Documents refused for good (or that stop the job: the handler's {@link UnauthorizedWrites} ends it). */
    RuntimeException refused(List<FailedOperation> permanent) {
        metrics.permanentFailures.inc(permanent.size());
        try {
            failureHandler.onFailures(permanent);
            return null;
        } catch (Exception e) {
            return handlerFailed(e);
        }
    }

    /**
     * Documents a data stream refused and kept in its failure store: counted, warned about (the
     * first of each run, then with the running count every 1,000), and handed to the failure
     * handler, which puts them in the dead-letter topic when there is one.
     */
    RuntimeException failureStored(List<FailedOperation> stored) {
        long before = metrics.failureStored.getCount();
        metrics.failureStored.inc(stored.size());
        if (before == 0 || before / 1000 != metrics.failureStored.getCount() / 1000) {
            LOG.warn(
                    "{} document(s) so far went to a data stream's failure store instead of the data stream (Elasticsearch "
                            + "answered success with failure_store: used), latest: {}",
                    metrics.failureStored.getCount(),
                    stored.get(0).describe());
        }
        try {
            failureHandler.onFailureStored(stored);
            return null;
        } catch (Exception e) {
            return handlerFailed(e);
        }
    }

    private static RuntimeException handlerFailed(Exception e) {
        return e instanceof RuntimeException re ? re : new RuntimeException(e.getMessage(), e);
    }
}
