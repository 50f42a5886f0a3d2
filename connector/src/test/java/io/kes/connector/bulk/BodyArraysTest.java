package io.kes.connector.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.ElasticsearchSink;
import io.kes.connector.SinkSettings;
import org.junit.jupiter.api.Test;

class BodyArraysTest {

    private static final int MB = 1 << 20;

    @Test
    void anAnsweredArrayIsFilledAgainByTheNextBufferOfAboutItsSize() {
        BodyArrays arrays = new BodyArrays(2 * MB);
        byte[] answered = new byte[MB];
        arrays.giveBack(answered);

        assertThat(arrays.take(MB - 1000)).isSameAs(answered);
        assertThat(arrays.take(MB - 1000)).isNotSameAs(answered).hasSize(MB - 1000);
    }

    @Test
    void anArrayMoreThanTwiceTheSizeAskedForIsLeftForALargerBuffer() {
        BodyArrays arrays = new BodyArrays(2 * MB);
        byte[] answered = new byte[MB];
        arrays.giveBack(answered);

        assertThat(arrays.take(MB / 4)).isNotSameAs(answered);
        assertThat(arrays.take(MB)).isSameAs(answered);
    }

    @Test
    void smallArraysAndArraysGrownPastTheLargestStartAreNotKept() {
        BodyArrays arrays = new BodyArrays(MB);
        byte[] small = new byte[32 * 1024];
        byte[] grown = new byte[2 * MB];
        arrays.giveBack(small);
        arrays.giveBack(grown);

        assertThat(arrays.take(small.length)).isNotSameAs(small);
        assertThat(arrays.take(grown.length)).isNotSameAs(grown);
    }

    @Test
    void atMostAFewArraysAreKeptTheOldestGoingFirst() {
        BodyArrays arrays = new BodyArrays(2 * MB);
        byte[][] answered = new byte[BodyArrays.KEPT + 1][];
        for (int i = 0; i < answered.length; i++) {
            answered[i] = new byte[MB];
            arrays.giveBack(answered[i]);
        }

        for (int i = 1; i < answered.length; i++) {
            assertThat(arrays.take(MB)).isSameAs(answered[i]);
        }
        assertThat(arrays.take(MB)).isNotSameAs(answered[0]);
    }

    @Test
    void theWritersHeapBoundCountsTheArraysKept() {
        SinkSettings settings = ElasticsearchSink.builder()
                .setHosts("http://127.0.0.1:9200")
                .build()
                .settings();
        long withoutThem = settings.maxBufferedBytes()
                + settings.maxQueuedBytes()
                + 2L * settings.maxInFlight() * 2 * settings.maxBytes();

        assertThat(settings.writerHeapBound(1) - withoutThem)
                .isEqualTo((long) BodyArrays.KEPT * (settings.maxBytes() + 64 * 1024));
    }
}
