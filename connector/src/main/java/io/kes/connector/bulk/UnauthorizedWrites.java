package io.kes.connector.bulk;

import io.kes.connector.DocumentOperation;
import io.kes.connector.FailedOperation;
import io.kes.connector.FailureHandler;
import io.kes.connector.NonRecoverable;
import io.kes.connector.cluster.PrivilegeCheck;
import io.kes.connector.cluster.StatusPolicy;
import io.kes.connector.cluster.StatusPolicy.Action;
import java.util.List;

/**
 * Stops the job when Elasticsearch refuses a write for lack of a privilege (an item answered 401
 * or 403) instead of handing it to the failure handler. The record is fine; kes's user or API key
 * is not: the default handler would fail the job, and every restart would replay the record into
 * the same 403 for ever; a dead-letter topic would take every record of the index, one by one.
 * Only a grant (or other credentials) fixes it, so the job ends once, saying which.
 *
 * <p>A 403 {@code cluster_block_exception} is no missing privilege: the index has a write block
 * ({@code PUT <index>/_block/write}, an ILM read-only phase). Those go to the next handler, as any
 * refused write does (the dead-letter topic, or the job fails naming the block).
 */
final class UnauthorizedWrites implements FailureHandler {

    private static final long serialVersionUID = 1L;

    private final FailureHandler next;

    UnauthorizedWrites(FailureHandler next) {
        this.next = next;
    }

    @Override
    public void open(int subtaskIndex) throws Exception {
        next.open(subtaskIndex);
    }

    @Override
    public void onFailures(List<FailedOperation> failures) throws Exception {
        for (FailedOperation f : failures) {
            DocumentOperation op = f.operation();
            if (StatusPolicy.ofItem(
                            f.status(),
                            f.errorType(),
                            f.reason(),
                            op.opType(),
                            op.version() != DocumentOperation.NO_VERSION)
                    == Action.STOP) {
                throw NonRecoverable.error(message(f));
            }
        }
        next.onFailures(failures);
    }

    @Override
    public void onFailureStored(List<FailedOperation> stored) throws Exception {
        next.onFailureStored(stored);
    }

    static String message(FailedOperation f) {
        String index = f.operation().index();
        if (f.status() == 401) {
            return PrivilegeCheck.credentialsRefused("a write to " + index) + " " + f.errorType() + ": " + f.reason();
        }
        String reason = String.valueOf(f.reason());
        String needed = reason.contains("auto_create") || reason.contains("create_index")
                ? "the index privilege 'auto_configure' (or 'create_index') on " + index
                        + ", which kes's writes create (or create " + "the index beforehand)"
                : "the index privileges 'create_doc' and 'index' (and 'delete' for tombstones; or 'write') on " + index;
        return "Elasticsearch refused kes's write to " + index + " (HTTP 403): kes's user or API key lacks " + needed
                + ". Grant it to the role of elasticsearch.username or elasticsearch.api_key. " + f.errorType() + ": "
                + reason;
    }

    @Override
    public void flush() throws Exception {
        next.flush();
    }

    @Override
    public void close() throws Exception {
        next.close();
    }
}
