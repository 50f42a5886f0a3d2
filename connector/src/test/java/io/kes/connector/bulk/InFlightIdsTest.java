package io.kes.connector.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.DocumentOperation;
import io.kes.connector.OpType;
import io.kes.connector.routing.PredictedShard;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class InFlightIdsTest {

    private static BulkBody body(DocumentOperation... ops) {
        BulkBody body = new BulkBody(16);
        for (DocumentOperation op : ops) {
            body.add(op, PredictedShard.UNKNOWN);
        }
        return body;
    }

    private static DocumentOperation write(String id, boolean unique) {
        return DocumentOperation.write(OpType.INDEX, "logs")
                .id(id)
                .idUnique(unique)
                .source("{}".getBytes(StandardCharsets.UTF_8))
                .build();
    }

    @Test
    void aBodyWithAnIdInFlightWaitsUntilThatWriteIsDone() {
        InFlightIds inFlight = new InFlightIds();
        BulkBody first = body(write("k", false), write("k", false));
        inFlight.holdAll(first);

        assertThat(inFlight.anyHeld(body(write("other", false), write("k", false))))
                .isTrue();
        inFlight.release(first.operation(0));
        assertThat(inFlight.anyHeld(body(write("k", false))))
                .as("held once per item: one write of k still in flight")
                .isTrue();
        inFlight.release(first.operation(1));
        assertThat(inFlight.anyHeld(body(write("k", false)))).isFalse();
    }

    /** Issue 26 item 3: {@code id: kafka} ids never repeat in a run, so no per-document map work for them. */
    @Test
    void idsThatCannotRepeatAreNeitherHeldNorWaitedFor() {
        InFlightIds inFlight = new InFlightIds();
        BulkBody unique = body(write("t-0-1", true), write("t-0-2", true));
        inFlight.holdAll(unique);

        assertThat(inFlight.anyHeld(body(write("t-0-1", false))))
                .as("nothing was held")
                .isFalse();
        inFlight.releaseAll(unique); // nothing to release, and no complaint
        assertThat(inFlight.anyHeld(body(write("t-0-3", true)))).isFalse();
    }
}
