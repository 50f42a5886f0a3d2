package io.kes.connector.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The departure rule, row by row: a buffer that is not full, its first document at 0 ms, looked at
 * {@code now} ms later. {@code coalesce} -1: not set (the wait comes from the index's refresh);
 * {@code refresh} -1: the index does not refresh; {@code due} -1: no checkpoint waits for it.
 * {@code next} is when to look again if it stays; -1: not before a bulk ends.
 */
class DepartureRuleTest {

    private static final long NONE = -1;

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            # case                                            | coalesce | linger | refresh | now  | due | idle  | room  | goes  | next
            default: waits half the refresh, on an idle node  | -1       | 1000   | 1000    | 499  | -1  | true  | true  | false | 500
            default: goes at half the refresh with room       | -1       | 1000   | 1000    | 500  | -1  | true  | true  | true  | -1
            default: a busy node with a free place is enough  | -1       | 1000   | 1000    | 500  | -1  | false | true  | true  | -1
            default: no free place, keeps filling             | -1       | 1000   | 1000    | 5000 | -1  | false | false | false | -1
            default: a slow refresh waits the linger at most  | -1       | 1000   | 30000   | 999  | -1  | true  | true  | false | 1000
            default: ... and goes then                        | -1       | 1000   | 30000   | 1000 | -1  | true  | true  | true  | -1
            default: a fast refresh, a short wait             | -1       | 1000   | 200     | 100  | -1  | true  | true  | true  | -1
            default: no refresh, waits out the linger         | -1       | 1000   | -1      | 999  | -1  | true  | true  | false | 1000
            default: no refresh, goes at the linger           | -1       | 1000   | -1      | 1000 | -1  | false | true  | true  | -1
            default: due for a checkpoint, without room       | -1       | 1000   | 1000    | 100  | 100 | false | false | true  | -1
            default: due later than its wait                  | -1       | 1000   | 1000    | 100  | 300 | true  | true  | false | 300
            eager: coalesced on an idle node                  | 5        | 1000   | 1000    | 5    | -1  | true  | true  | true  | -1
            eager: coalescing                                 | 5        | 1000   | 1000    | 4    | -1  | true  | true  | false | 5
            eager: a busy node waits for the linger           | 5        | 1000   | 1000    | 500  | -1  | false | true  | false | 1000
            eager: lingered with a free place                 | 5        | 1000   | 1000    | 1000 | -1  | false | true  | true  | -1
            eager: no free place, keeps filling               | 5        | 1000   | 1000    | 5000 | -1  | false | false | false | -1
            eager: due for a checkpoint                       | 5        | 1000   | 1000    | 2    | 2   | false | false | true  | -1
            eager: zero goes at once on an idle node          | 0        | 1000   | 1000    | 0    | -1  | true  | true  | true  | -1
            """)
    void aBufferThatIsNotFullGoesWhenTheRuleSays(
            String row,
            long coalesce,
            long linger,
            long refresh,
            long now,
            long due,
            boolean idle,
            boolean room,
            boolean goes,
            long next) {
        DepartureRule rule = new DepartureRule(coalesce, linger);
        Slot slot = new Slot("logs", 0);
        slot.firstDocAtMillis = 0;
        slot.refreshIntervalMillis = refresh;
        slot.dueAtMillis = due == NONE ? Long.MAX_VALUE : due;
        SlotBuffers.Room nodeRoom = new SlotBuffers.Room() {
            @Override
            public boolean idle(Slot s) {
                return idle;
            }

            @Override
            public boolean hasRoom(Slot s) {
                return room;
            }
        };

        assertThat(rule.goesNow(slot, now, nodeRoom)).as("goes now").isEqualTo(goes);
        if (!goes) {
            assertThat(rule.nextLook(slot, now, nodeRoom))
                    .as("looks again at")
                    .isEqualTo(next == NONE ? Long.MAX_VALUE : next);
        }
    }
}
