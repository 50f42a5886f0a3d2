package io.kes.jobs.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.OptionalLong;

/**
 * A bounded job's last checkpoint, asked for again when a closing task declined it.
 *
 * <p>When a bounded job's input ends, its finished tasks wait for one more checkpoint to complete
 * before they end. Flink starts it as they finish; a task already closing declines it ("Checkpoint
 * was declined (task is closing)"), and the next periodic one waits out
 * {@code execution.checkpointing.min-pause} after the last completed one: seen in about one
 * bin/kes run in fifteen, the job's end 5 s late with {@code checkpoints-config/local.yaml}'s
 * 5 s pause. A checkpoint asked for through the REST API is not periodic, so the pause does not
 * hold it back. Only that decline is answered this way: any other failed checkpoint (a fence that
 * found an unsynced write, an outage) is retried by Flink's own schedule, pause included.
 *
 * <p>The failure's message is only in the web UI's statistics, which cost a request, Flink's
 * handlers and JSON to read; they are read only when the JobManager's gauges (in memory, through
 * {@link ProgressReporter}) count a failed checkpoint the statistics did not show yet.
 */
final class ClosingTaskDeclines {

    static final String TASK_CLOSING = "task is closing";

    private long answered = -1;
    /** The failed checkpoints the web UI's statistics counted when last read. */
    private long failedShown;

    /**
     * Whether the web UI's statistics are worth reading: the JobManager counts more failed
     * checkpoints ({@code failed}) than they showed when last read, and none is in progress.
     */
    boolean worthReading(long failed, long inProgress) {
        return failed > failedShown && inProgress == 0;
    }

    /**
     * From the web UI's {@code /jobs/<id>/checkpoints} answer: the declined checkpoint to ask for
     * another in place of, if any. Once per declined checkpoint, when it is newer than the last
     * completed one and no checkpoint is in progress.
     */
    OptionalLong askAgain(JsonNode checkpoints) {
        if (checkpoints == null) {
            return OptionalLong.empty();
        }
        failedShown =
                Math.max(failedShown, checkpoints.path("counts").path("failed").asLong(0));
        if (checkpoints.path("counts").path("in_progress").asLong(0) > 0) {
            return OptionalLong.empty();
        }
        JsonNode failed = checkpoints.path("latest").path("failed");
        long failedId = failed.path("id").asLong(-1);
        long completedId =
                checkpoints.path("latest").path("completed").path("id").asLong(-1);
        if (failedId <= completedId
                || failedId <= answered
                || !failed.path("failure_message").asText("").contains(TASK_CLOSING)) {
            return OptionalLong.empty();
        }
        answered = failedId;
        return OptionalLong.of(failedId);
    }
}
