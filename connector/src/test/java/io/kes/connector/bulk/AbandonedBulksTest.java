package io.kes.connector.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.bulk.EarlierWrites.TaggedBulks;
import io.kes.connector.cluster.SentTo;
import io.kes.connector.cluster.StatusPolicy;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import org.apache.http.HttpHost;
import org.junit.jupiter.api.Test;

/**
 * A bulk that got no answer is retried only once Elasticsearch no longer runs it (issue 27 item 3):
 * the decisions, with the task listing and the timers faked (one listing answer per poll).
 */
class AbandonedBulksTest {

    /** The listing's answers in turn: a {@link TaggedBulks}, or an Integer HTTP status for a failed listing. */
    private final Deque<Object> answers = new ArrayDeque<>();

    private final Deque<Runnable> timers = new ArrayDeque<>();
    private long nanos;
    private int listings;
    private final List<HttpHost> askedAt = new ArrayList<>();
    private boolean retried;
    private final List<String> gaveUp = new ArrayList<>();

    private final AbandonedBulks abandoned = new AbandonedBulks(
            this::list,
            (delay, action) -> timers.add(() -> {
                nanos += delay * 1_000_000;
                action.run();
            }),
            () -> nanos);

    @Test
    void everyListingAlsoAsksTheNodeTheBulkWentTo() {
        HttpHost node = new HttpHost("127.0.0.2", 9200);
        answers.add(tasks(false)); // that node did not answer for itself
        answers.add(500);
        answers.add(tasks(true));

        awaitGone(node, 5_000);
        runTimers(2);

        assertThat(retried).isTrue();
        assertThat(askedAt).containsExactly(node, node, node);
    }

    @Test
    void aNodeThatDoesNotAnswerForItselfMayStillRunTheBulkButOneThatRefusesConnectionsRunsNothing() {
        TaggedBulks cluster = tasks(true);

        assertThat(cluster.and(TaggedBulks.notAnsweredBy(new java.net.SocketTimeoutException("timeout")))
                        .everyNodeAnswered())
                .as("frozen, or cut off: it may apply the bulk when it rejoins")
                .isFalse();
        assertThat(cluster.and(TaggedBulks.notAnsweredBy(
                                new java.net.ConnectException("Timeout connecting to [/127.0.0.1:9200]")))
                        .everyNodeAnswered())
                .as("a frozen node's full accept queue: the client's connect timeout")
                .isFalse();
        assertThat(cluster.and(TaggedBulks.notAnsweredBy(
                                new java.io.IOException(new java.net.ConnectException("Connection refused"))))
                        .everyNodeAnswered())
                .as("no process listens: a bulk it held died with it")
                .isTrue();
        assertThat(tasks(true, "n1:1").and(tasks(true, "n2:2"))).isEqualTo(tasks(true, "n1:1", "n2:2"));
        assertThat(tasks(true).and(tasks(false)).everyNodeAnswered()).isFalse();
    }

    @Test
    void aBulkIsRetriedAtOnceWhenNoBulkOfTheJobRuns() {
        answers.add(tasks(true));

        awaitGone(5_000);

        assertThat(retried).isTrue();
        assertThat(listings).isEqualTo(1);
    }

    @Test
    void theRetryWaitsForEveryBulkThatRanWhenKesGaveUpAndNotForLaterOnes() {
        answers.add(tasks(true, "n1:1", "n1:2"));
        answers.add(tasks(true, "n1:1", "n1:3"));
        answers.add(tasks(true, "n1:3", "n2:4"));

        awaitGone(5_000);
        runTimers(1);
        assertThat(retried).as("n1:1 still runs").isFalse();
        runTimers(1);

        assertThat(retried)
                .as("n1:1 and n1:2 gone; n1:3 and n2:4 started later")
                .isTrue();
        assertThat(listings).isEqualTo(3);
    }

    @Test
    void aNodeThatDidNotAnswerMayStillRunTheBulk() {
        answers.add(tasks(false));
        answers.add(tasks(false));
        answers.add(tasks(true, "n2:7"));
        answers.add(tasks(true));

        awaitGone(5_000);
        runTimers(2);
        assertThat(retried)
                .as("the node that answered now runs one of the job's bulks")
                .isFalse();
        runTimers(1);

        assertThat(retried).isTrue();
    }

    @Test
    void anUnreachableClusterIsAskedAgainUntilRetryMaxTimeThenTheWriteGivesUp() {
        for (int i = 0; i < 100; i++) {
            answers.add(StatusPolicy.NO_RESPONSE);
        }

        awaitGone(1_000);
        runTimers(100);

        assertThat(retried).isFalse();
        assertThat(gaveUp).hasSize(1);
        assertThat(gaveUp.get(0)).contains("still runs");
        assertThat(listings)
                .as("at 0, 200, ... 1,200 ms: the first answer past the deadline gives up")
                .isEqualTo(7);
    }

    @Test
    void aBulkStillRunningAtRetryMaxTimeFailsTheWrite() {
        for (int i = 0; i < 100; i++) {
            answers.add(tasks(true, "n1:1"));
        }

        awaitGone(600);
        runTimers(100);

        assertThat(retried).isFalse();
        assertThat(gaveUp).hasSize(1);
    }

    @Test
    void withoutTheMonitorPrivilegeTheBulkIsRetriedAtOnce() {
        answers.add(403);

        awaitGone(5_000);

        assertThat(retried).isTrue();
        assertThat(gaveUp).isEmpty();
    }

    @Test
    void withoutATasksApiTheBulkIsRetriedAtOnce() {
        answers.add(404); // OpenSearch Serverless

        awaitGone(5_000);

        assertThat(retried).isTrue();
        assertThat(gaveUp).isEmpty();
    }

    @Test
    void theListingIsReadByTheJobsTagAndSaysWhenANodeFailedToAnswer() throws Exception {
        String body = "{\"tasks\":[{\"node\":\"n1\",\"id\":1,\"headers\":{\"X-Opaque-Id\":\"kes/job\"}},"
                + "{\"node\":\"n1\",\"id\":2,\"headers\":{\"X-Opaque-Id\":\"kes/other\"}},{\"node\":\"n2\",\"id\":3}],"
                + "\"node_failures\":[{\"type\":\"failed_node_exception\"}]}";

        TaggedBulks parsed =
                TaggedBulks.parse(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)), "kes/job");

        assertThat(parsed.ids()).containsExactly("n1:1");
        assertThat(parsed.everyNodeAnswered()).isFalse();
        assertThat(TaggedBulks.parse(new ByteArrayInputStream("{}".getBytes(StandardCharsets.UTF_8)), "kes/job"))
                .isEqualTo(new TaggedBulks(Set.of(), true));
    }

    private void awaitGone(long retryTimeLeftMillis) {
        awaitGone(null, retryTimeLeftMillis);
    }

    private void awaitGone(HttpHost sentTo, long retryTimeLeftMillis) {
        abandoned.awaitGone(
                sentTo == null ? null : SentTo.address(sentTo),
                nanos + retryTimeLeftMillis * 1_000_000,
                () -> retried = true,
                gaveUp::add);
    }

    private void runTimers(int count) {
        for (int i = 0; i < count && !timers.isEmpty(); i++) {
            timers.poll().run();
        }
    }

    private void list(SentTo node, Consumer<TaggedBulks> listed, IntConsumer failedWithStatus) {
        listings++;
        askedAt.add(node == null ? null : node.address());
        Object answer = answers.poll();
        if (answer instanceof Integer status) {
            failedWithStatus.accept(status);
        } else {
            listed.accept((TaggedBulks) answer);
        }
    }

    private static TaggedBulks tasks(boolean everyNodeAnswered, String... ids) {
        return new TaggedBulks(Set.of(ids), everyNodeAnswered);
    }
}
