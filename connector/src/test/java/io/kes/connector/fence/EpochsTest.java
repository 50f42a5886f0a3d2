package io.kes.connector.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kes.connector.fence.Epochs.Epoch;
import org.junit.jupiter.api.Test;

class EpochsTest {

    @Test
    void aBarrierWithNothingInFlightDrainsItsEpochAtOnce() {
        Epochs epochs = new Epochs();

        assertThat(epochs.closeCurrent()).extracting(e -> e.number).containsExactly(0L);
        assertThat(epochs.current().number).isEqualTo(1);
    }

    @Test
    void aClosedEpochDrainsWhenItsLastBulkIsDoneWhileLaterBulksKeepGoing() {
        Epochs epochs = new Epochs();
        Epoch first = epochs.bulkSent();
        Epoch alsoFirst = epochs.bulkSent();
        assertThat(alsoFirst).isSameAs(first);

        assertThat(epochs.closeCurrent()).isEmpty();
        Epoch second = epochs.bulkSent(); // written after the barrier, before the first epoch is done

        assertThat(second).isNotSameAs(first);
        assertThat(epochs.bulkDone(first)).isEmpty();
        assertThat(epochs.bulkDone(first)).containsExactly(first);
        assertThat(second.outstanding()).isEqualTo(1);
    }

    @Test
    void epochsDrainInBarrierOrderEvenWhenANewerOneFinishesFirst() {
        Epochs epochs = new Epochs();
        Epoch older = epochs.bulkSent();
        epochs.closeCurrent();
        Epoch newer = epochs.bulkSent();
        epochs.closeCurrent();

        assertThat(epochs.bulkDone(newer))
                .as("the newer checkpoint covers the older one's bulk too")
                .isEmpty();
        assertThat(epochs.bulkDone(older)).containsExactly(older, newer);
        assertThat(epochs.closedOutstanding()).isZero();
    }

    @Test
    void theOpenEpochNeverDrainsBeforeItsBarrier() {
        Epochs epochs = new Epochs();
        Epoch open = epochs.bulkSent();

        assertThat(epochs.bulkDone(open)).isEmpty();
        assertThat(epochs.closeCurrent()).containsExactly(open);
    }

    @Test
    void finishingABulkTwiceIsABug() {
        Epochs epochs = new Epochs();
        Epoch epoch = epochs.bulkSent();
        epochs.bulkDone(epoch);

        assertThatThrownBy(() -> epochs.bulkDone(epoch))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("a bulk finished twice");
    }
}
