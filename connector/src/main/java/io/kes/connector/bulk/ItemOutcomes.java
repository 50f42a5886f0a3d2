package io.kes.connector.bulk;

import io.kes.connector.FailedOperation;
import io.kes.connector.cluster.StatusPolicy;
import io.kes.connector.cluster.StatusPolicy.Action;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A bulk response's items classified by what happens to them next ({@link StatusPolicy#ofItem}): done,
 * sent again, or handed to the failure handler (which stops the job for a {@link Action#STOP}).
 * Pure: the writer applies the result.
 */
final class ItemOutcomes {

    /** {@link FailedOperation#errorType()} of a document kept in a failure store. */
    static final String FAILURE_STORE = "failure_store";

    final Action[] byItem;
    int succeeded;
    int replaysAccepted;
    int retriesRejected;
    int retriesUnavailable;
    /** Why the last retried item failed, for the log and the final error. */
    String retryCause;
    /** The items to send again, in order; null when none. */
    BulkBody retry;

    final List<FailedOperation> permanent = new ArrayList<>();
    /** Succeeded into a data stream's failure store: refused by the data stream, kept by Elasticsearch (see {@link io.kes.connector.FailureHandler#onFailureStored}). */
    final List<FailedOperation> failureStored = new ArrayList<>();

    private ItemOutcomes(int items) {
        byItem = new Action[items];
    }

    static ItemOutcomes classify(BulkBody sent, BulkResponse response) {
        ItemOutcomes classified = new ItemOutcomes(response.size());
        Set<String> retriedIds = null;
        for (int i = 0; i < response.size(); i++) {
            int status = response.status[i];
            Action outcome = StatusPolicy.ofItem(
                    status, response.errorType[i], response.errorReason[i], sent.opType(i), sent.versioned(i));
            // Once a write of an id is retried, every later write of that id in this bulk is sent
            // again after it, even one that succeeded: otherwise the retry would overwrite it.
            if (retriedIds != null && retriedIds.contains(idKey(sent, i))) {
                outcome = Action.RETRY;
            } else if (outcome == Action.RETRY) {
                boolean rejected = StatusPolicy.rejected(status, response.errorType[i]);
                classified.retryCause = (rejected ? "rejected" : "unavailable") + " (" + status + " "
                        + response.errorType[i] + ": " + response.errorReason[i] + ")";
                if (rejected) {
                    classified.retriesRejected++;
                } else {
                    classified.retriesUnavailable++;
                }
            }
            classified.byItem[i] = outcome;
            switch (outcome) {
                case DONE -> {
                    classified.succeeded++;
                    if (status == 409) {
                        classified.replaysAccepted++;
                    }
                    if (response.failureStored[i]) {
                        classified.failureStored.add(new FailedOperation(
                                sent.document(i),
                                status,
                                FAILURE_STORE,
                                "Elasticsearch refused the document "
                                        + "and kept it in its data stream's failure store (" + response.index[i]
                                        + "), which holds the reason"));
                    }
                }
                case RETRY -> {
                    if (classified.retry == null) {
                        classified.retry = new BulkBody(sent.sizeInBytes());
                    }
                    classified.retry.addEncoded(sent, i);
                    String id = idKey(sent, i);
                    if (id != null) {
                        if (retriedIds == null) {
                            retriedIds = new HashSet<>();
                        }
                        retriedIds.add(id);
                    }
                }
                case PERMANENT, STOP ->
                    classified.permanent.add( // STOP: the failure handler's UnauthorizedWrites ends the job
                            new FailedOperation(
                                    sent.document(i), status, response.errorType[i], response.errorReason[i]));
                case SPLIT -> throw new IllegalStateException("an item cannot be split: " + status);
            }
        }
        return classified;
    }

    /** The item's target and id as one key, or null when it has no id. */
    private static String idKey(BulkBody sent, int item) {
        String id = sent.id(item);
        return id == null ? null : sent.index(item) + '\u0000' + id;
    }
}
