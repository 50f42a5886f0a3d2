package io.kes.jobs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** When bin/kes run asks Flink again for a bounded job's last checkpoint. */
class ClosingTaskDeclinesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The web UI's {@code /jobs/<id>/checkpoints} answer, as Flink 2.2 writes it, trimmed. */
    private static JsonNode checkpoints(int inProgress, long completedId, long failedId, String failure)
            throws Exception {
        return JSON.readTree(String.format(
                "{\"counts\":{\"in_progress\":%d,\"failed\":%d},\"latest\":{\"completed\":%s,\"failed\":%s}}",
                inProgress,
                Math.max(0, failedId),
                completedId < 0 ? "null" : "{\"id\":" + completedId + "}",
                failedId < 0
                        ? "null"
                        : "{\"id\":" + failedId + ",\"failure_message\":" + JSON.writeValueAsString(failure) + "}"));
    }

    private static final String DECLINED = "Checkpoint was declined (task is closing)";

    @Test
    void aCheckpointAClosingTaskDeclinedAfterTheLastCompletedOneIsAskedForAgainOnce() throws Exception {
        ClosingTaskDeclines declines = new ClosingTaskDeclines();

        assertThat(declines.askAgain(checkpoints(0, 1, 2, DECLINED))).hasValue(2);
        assertThat(declines.askAgain(checkpoints(0, 1, 2, DECLINED)))
                .as("the same decline, seen again before the new checkpoint shows")
                .isEmpty();
        assertThat(declines.askAgain(checkpoints(0, 3, 4, DECLINED)))
                .as("a later decline")
                .hasValue(4);
    }

    @Test
    void otherFailuresAreLeftToFlinksOwnSchedule() throws Exception {
        assertThat(new ClosingTaskDeclines()
                        .askAgain(checkpoints(
                                0, 1, 2, "The checkpoint fence found a write an async translog may not have synced")))
                .isEmpty();
    }

    @Test
    void nothingIsAskedWhileACheckpointRunsOrAfterALaterOneCompleted() throws Exception {
        ClosingTaskDeclines declines = new ClosingTaskDeclines();

        assertThat(declines.askAgain(checkpoints(1, 1, 2, DECLINED)))
                .as("one in progress")
                .isEmpty();
        assertThat(declines.askAgain(checkpoints(0, 3, 2, DECLINED)))
                .as("a later one completed")
                .isEmpty();
        assertThat(declines.askAgain(checkpoints(0, -1, -1, null)))
                .as("none failed")
                .isEmpty();
        assertThat(declines.askAgain(null)).as("no answer").isEmpty();
    }

    @Test
    void aDeclineBeforeAnyCheckpointCompletedIsAskedForAgain() throws Exception {
        assertThat(new ClosingTaskDeclines().askAgain(checkpoints(0, -1, 1, DECLINED)))
                .hasValue(1);
    }

    /**
     * The statistics (a REST request, Flink's handlers, JSON) are read only when the JobManager's
     * gauge counts a failed checkpoint they did not show yet, and none is in progress; an answer
     * that does not show it yet (Flink's cache) leaves them worth reading.
     */
    @Test
    void theStatisticsAreReadOnlyForAFailureTheyHaveNotShownYet() throws Exception {
        ClosingTaskDeclines declines = new ClosingTaskDeclines();

        assertThat(declines.worthReading(0, 0)).as("nothing failed").isFalse();
        assertThat(declines.worthReading(-1, -1)).as("no gauges yet").isFalse();
        assertThat(declines.worthReading(1, 1))
                .as("one failed, another in progress")
                .isFalse();
        assertThat(declines.worthReading(1, 0)).isTrue();

        declines.askAgain(checkpoints(0, 1, -1, null));
        assertThat(declines.worthReading(1, 0))
                .as("an answer cached from before the failure")
                .isTrue();
        assertThat(declines.askAgain(checkpoints(0, 1, 2, DECLINED))).hasValue(2);
        assertThat(declines.worthReading(1, 0)).as("the answer showed it").isFalse();
    }
}
