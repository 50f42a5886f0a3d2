package io.kes.connector.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

class BackgroundReadsTest {

    @Test
    void withoutARefresherTheReadRunsAtOnceOnTheCallersThread() {
        BackgroundReads<String, Integer> reads = new BackgroundReads<>(null);
        assertThat(reads.start("a", () -> 1)).contains(1);
        assertThat(reads.running("a")).isFalse();
    }

    @Test
    void aBackgroundReadIsTakenOnceAndOnlyWhenItIsDone() {
        List<Runnable> refresher = new ArrayList<>();
        BackgroundReads<String, Integer> reads = new BackgroundReads<>(refresher::add);
        assertThat(reads.start("a", () -> 1)).isEmpty();
        assertThat(reads.running("a")).isTrue();
        assertThat(reads.takeDone("a")).as("still running").isEmpty();

        refresher.remove(0).run();
        assertThat(reads.takeDone("a")).contains(1);
        assertThat(reads.takeDone("a")).as("taken already").isEmpty();
        assertThat(reads.running("a")).isFalse();
    }

    @Test
    void aForgottenReadIsNeverTaken() {
        List<Runnable> refresher = new ArrayList<>();
        BackgroundReads<String, Integer> reads = new BackgroundReads<>(refresher::add);
        reads.start("a", () -> 1);
        reads.forget("a");
        refresher.remove(0).run();
        assertThat(reads.takeDone("a")).isEmpty();
    }

    @Test
    void aRefresherThatIsShutDownReadsOnTheCallersThread() {
        BackgroundReads<String, Integer> reads = new BackgroundReads<>(task -> {
            throw new RejectedExecutionException("shut down");
        });
        assertThat(reads.start("a", () -> 1)).isEqualTo(Optional.of(1));
        assertThat(reads.running("a")).isFalse();
    }

    @Test
    void nextReadsAnUnknownKeyHereAndAnExpiredOneInTheBackgroundWhileTheOwnerKeepsWhatItHas() {
        List<Runnable> refresher = new ArrayList<>();
        BackgroundReads<String, Integer> reads = new BackgroundReads<>(refresher::add);
        assertThat(reads.next("a", false, false, () -> 1))
                .as("unknown: read here")
                .contains(1);
        assertThat(reads.next("a", true, false, () -> 2))
                .as("known, not expired")
                .isEmpty();
        assertThat(refresher).isEmpty();

        assertThat(reads.next("a", true, true, () -> 2))
                .as("expired: read in the background")
                .isEmpty();
        assertThat(reads.next("a", true, true, () -> 3))
                .as("one read at a time")
                .isEmpty();
        assertThat(refresher).hasSize(1);
        refresher.remove(0).run();
        assertThat(reads.next("a", true, true, () -> 3)).as("the finished read").contains(2);

        reads.next("a", true, true, () -> 4);
        assertThat(reads.next("a", false, false, () -> 5))
                .as("entry dropped: read here, the running read dropped")
                .contains(5);
        refresher.remove(0).run();
        assertThat(reads.next("a", true, false, () -> 6)).isEmpty();
    }

    @Test
    void readsOfKeysItsOwnerForgotAreDroppedSoTheyDoNotPileUp() {
        List<Runnable> refresher = new ArrayList<>();
        BackgroundReads<String, Integer> reads = new BackgroundReads<>(refresher::add);
        reads.start("kept", () -> 1);
        reads.start("forgotten", () -> 2);
        refresher.forEach(Runnable::run);

        reads.retainOnly(java.util.Set.of("kept"));

        assertThat(reads.running("forgotten")).isFalse();
        assertThat(reads.takeDone("kept")).contains(1);
    }
}
