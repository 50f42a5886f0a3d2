package io.kes.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class VisibleLagTest {

    private static final long MS = 1_000_000;

    private static VisibleCounts.Sample answer(long sentMs, long answeredMs, long count) {
        return new VisibleCounts.Sample(sentMs * MS, answeredMs * MS, count);
    }

    /** Records acknowledged every 10 ms from 10 ms on: record n at n x 10 ms. */
    private static long[] ackedEvery10Ms(int records) {
        long[] acked = new long[records];
        for (int i = 0; i < records; i++) {
            acked[i] = (i + 1) * 10 * MS;
        }
        return acked;
    }

    @Test
    void aSearchLagsByItsAnswerTimeMinusWhenItsCountHadBeenProduced() {
        // 100 prelude records counted by every answer; at 205 ms a search counts 10 paced records (produced at 100 ms)
        VisibleLag.Series s = VisibleLag.of(List.of(answer(200, 205, 110)), 0, 100, ackedEvery10Ms(50));

        assertThat(s.visible()).containsExactly(10);
        assertThat(s.lagMillis()).containsExactly(105);
        assertThat(s.atMillis()).containsExactly(205);
    }

    @Test
    void percentilesAreOverTheAnswersWhileTheProducerWroteTheRestIsTheDrain() {
        // the producer's last of 100 records at 1,000 ms; every search sees what was produced 300 ms
        // before (a refresh a second, at the mid point), the last one everything at 1,250 ms
        List<VisibleCounts.Sample> answers = new ArrayList<>();
        for (long t = 400; t <= 1000; t += 200) {
            answers.add(answer(t, t, (t - 300) / 10));
        }
        answers.add(answer(1200, 1250, 100));

        IndexLag.Summary s = VisibleLag.of(answers, 0, 0, ackedEvery10Ms(100)).summary();

        assertThat(s.samples()).isEqualTo(4);
        assertThat(s.p50()).isEqualTo(300);
        assertThat(s.p99()).isEqualTo(300);
        assertThat(s.drain()).isEqualTo(250);
    }

    @Test
    void aSearchHeldByAStalledNodeLagsByItsWholeWaitAndTheOnesBehindItCountToo() {
        // searches sent at 200, 400, 600 ms: the first is held until 700 ms and answers after the others
        List<VisibleCounts.Sample> answers = List.of(answer(400, 405, 30), answer(600, 605, 50), answer(200, 700, 15));

        VisibleLag.Series s = VisibleLag.of(answers, 0, 0, ackedEvery10Ms(100));

        assertThat(s.atMillis()).containsExactly(405, 605, 700);
        assertThat(s.lagMillis()).containsExactly(105, 105, 550);
        assertThat(s.summary().max()).isEqualTo(550);
    }

    @Test
    void searchesSentBeforeTheClockStartedAreLeftOut() {
        List<VisibleCounts.Sample> answers = List.of(answer(90, 110, 0), answer(300, 305, 20));

        VisibleLag.Series s = VisibleLag.of(answers, 100 * MS, 0, ackedEvery10Ms(50));

        assertThat(s.atMillis()).containsExactly(205);
    }

    @Test
    void aPreludeNotYetVisibleLagsSinceProductionStarted() {
        // 100 prelude records, only 60 of them visible 50 ms after the start
        VisibleLag.Series s = VisibleLag.of(List.of(answer(40, 50, 60)), 0, 100, ackedEvery10Ms(10));

        assertThat(s.visible()).containsExactly(-40);
        assertThat(s.lagMillis()).containsExactly(50);
    }

    @Test
    void answersAfterTheFirstCountingEveryRecordAreLeftOut() {
        List<VisibleCounts.Sample> answers = List.of(answer(200, 205, 10), answer(400, 405, 10), answer(600, 605, 10));

        VisibleLag.Series s = VisibleLag.of(answers, 0, 0, ackedEvery10Ms(10));

        assertThat(s.atMillis()).containsExactly(205);
        assertThat(s.summary().drain()).isEqualTo(105);
    }

    @Test
    void withoutAnAnswerCountingEveryRecordTheDrainIsNotANumber() {
        VisibleLag.Series s = VisibleLag.of(List.of(answer(200, 205, 5)), 0, 0, ackedEvery10Ms(10));

        assertThat(s.summary().drain()).isNaN();
        assertThat(s.summary().p50()).isEqualTo(155);
    }
}
