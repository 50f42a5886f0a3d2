package io.kes.connector.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.internal.Backoff;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When a bulk goes out again, or the job fails: each row an attempt and the time since the bulk first went out. */
class RetriesTest {

    private static final long MS = 1_000_000;
    private final Retries retries =
            new Retries(Duration.ofSeconds(60), new Backoff(Duration.ofMillis(100), Duration.ofSeconds(5)));

    /** {@code minDelay..maxDelay}: the backoff's jitter (half to all of its ceiling); -1: the job fails. */
    private record Row(String what, int attempt, long elapsedMillis, long minDelay, long maxDelay) {}

    @Test
    void eachAttemptWaitsItsBackoffUntilTheRetryTimeIsUp() {
        List<Row> rows = List.of(
                new Row("the first retry waits up to the initial backoff", 1, 0, 50, 100),
                new Row("the third waits up to four times as long", 3, 1_000, 200, 400),
                new Row("the backoff stops at retry.max_backoff", 20, 30_000, 2_500, 5_000),
                new Row("just before retry.max_time it still retries", 2, 59_999, 100, 200),
                new Row("at retry.max_time the job fails", 2, 60_000, -1, -1),
                new Row("past it too", 7, 90_000, -1, -1));
        for (Row row : rows) {
            BulkInFlight bulk = BulkAnswersTest.bulkOf(2);
            bulk.firstSentNanos = 5 * MS;
            bulk.attempt = row.attempt();

            NextStep next = retries.next(bulk, bulk.firstSentNanos + row.elapsedMillis() * MS, "rejected (429)");

            if (row.minDelay() < 0) {
                assertThat(next).as(row.what()).isInstanceOf(NextStep.GiveUp.class);
                assertThat(((NextStep.GiveUp) next).failure())
                        .as(row.what())
                        .hasMessageContaining("2 documents (slot logs[0]) still failed after " + row.attempt()
                                + " attempts over " + row.elapsedMillis() + " ms, last cause: rejected (429)")
                        .hasMessageContaining("Raise retry.max_time");
            } else {
                assertThat(next).as(row.what()).isInstanceOf(NextStep.RetryAfter.class);
                assertThat(((NextStep.RetryAfter) next).delayMillis())
                        .as(row.what())
                        .isBetween(row.minDelay(), row.maxDelay());
            }
            assertThat(bulk.attempt).as("the decider changes nothing").isEqualTo(row.attempt());
        }
    }

    @Test
    void aBulkWithoutAnswerWaitsForItsNodeUntilTheRetryTimeIsUpThenTheJobFailsSayingWhy() {
        BulkInFlight bulk = BulkAnswersTest.bulkOf(1);
        bulk.firstSentNanos = 5 * MS;

        assertThat(retries.deadlineNanos(bulk)).isEqualTo(5 * MS + 60_000 * MS);
        assertThat(retries.waitedTooLong(bulk, 5 * MS + 61_000 * MS, "the node still runs it")
                        .failure())
                .hasMessageContaining("over 61000 ms, last cause: the node still runs it");
    }
}
