package io.kes.connector.bulk;

import io.kes.connector.DocumentOperation;
import io.kes.connector.FailedOperation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A bulk response's items sorted by what happens to them next ({@link ItemOutcome}): done, sent
 * again, or handed to the failure handler. Pure: the writer applies the result.
 */
final class ItemOutcomes {

    final ItemOutcome[] byItem;
    int succeeded;
    int replaysAccepted;
    int retriesRejected;
    int retriesUnavailable;
    /** Why the last retried item failed, for the log and the final error. */
    String retryCause;
    /** The items to send again, in order; null when none. */
    BulkBody retry;
    final List<FailedOperation> permanent = new ArrayList<>();

    private ItemOutcomes(int items) {
        byItem = new ItemOutcome[items];
    }

    static ItemOutcomes sort(BulkBody sent, BulkResponse response) {
        ItemOutcomes sorted = new ItemOutcomes(response.size());
        Set<String> retriedIds = null;
        for (int i = 0; i < response.size(); i++) {
            DocumentOperation op = sent.operation(i);
            int status = response.status[i];
            ItemOutcome outcome = ItemOutcome.of(status, response.errorType[i], op.opType(), op.version() != DocumentOperation.NO_VERSION);
            // Once a write of an id is retried, every later write of that id in this bulk is sent
            // again after it, even one that succeeded: otherwise the retry would overwrite it.
            if (retriedIds != null && op.id() != null && retriedIds.contains(idKey(op))) {
                outcome = ItemOutcome.RETRY;
            } else if (outcome == ItemOutcome.RETRY) {
                sorted.retryCause = ItemOutcome.retryCause(status, response.errorType[i]) + " (" + status + " "
                        + response.errorType[i] + ": " + response.errorReason[i] + ")";
                if (status == 429 || "es_rejected_execution_exception".equals(response.errorType[i])) {
                    sorted.retriesRejected++;
                } else {
                    sorted.retriesUnavailable++;
                }
            }
            sorted.byItem[i] = outcome;
            switch (outcome) {
                case SUCCESS -> {
                    sorted.succeeded++;
                    if (status == 409) {
                        sorted.replaysAccepted++;
                    }
                }
                case RETRY -> {
                    if (sorted.retry == null) {
                        sorted.retry = new BulkBody(sent.sizeInBytes());
                    }
                    sorted.retry.addEncoded(sent, i);
                    if (op.id() != null) {
                        if (retriedIds == null) {
                            retriedIds = new HashSet<>();
                        }
                        retriedIds.add(idKey(op));
                    }
                }
                case PERMANENT -> sorted.permanent.add(
                        new FailedOperation(op, status, response.errorType[i], response.errorReason[i]));
            }
        }
        return sorted;
    }

    private static String idKey(DocumentOperation op) {
        return op.index() + '\u0000' + op.id();
    }
}
