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
                "{\"counts\":{\"in_progress\":%d},\"latest\":{\"completed\":%s,\"failed\":%s}}",
                inProgress,
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
}
