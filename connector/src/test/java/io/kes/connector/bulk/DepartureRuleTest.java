package io.kes.connector.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The departure rule, row by row: a buffer that is not full, its first document at 0 ms, looked at
 * {@code now} ms later. {@code coalesce} -1: not set (the wait comes from the index's refresh);
 * {@code refresh} -1: the index does not refresh. {@code goes} is why it goes, or STAYS; then
 * {@code next} is when to look again if nothing changes (a bulk that ends looks again sooner).
 */
class DepartureRuleTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            # case                                            | coalesce | linger | refresh | now  | idle  | room  | goes      | next
            default: waits half the refresh, on an idle node  | -1       | 1000   | 1000    | 499  | true  | true  | STAYS     | 500
            default: goes at half the refresh with room       | -1       | 1000   | 1000    | 500  | true  | true  | REFRESH   | -1
            default: a busy node with a free place is enough  | -1       | 1000   | 1000    | 500  | false | true  | REFRESH   | -1
            default: no free place, keeps filling             | -1       | 1000   | 1000    | 900  | false | false | STAYS     | 1000
            default: no free place, goes at the linger        | -1       | 1000   | 1000    | 1000 | false | false | LINGER    | -1
            default: a slow refresh waits the linger at most  | -1       | 1000   | 30000   | 999  | true  | true  | STAYS     | 1000
            default: ... and goes then                        | -1       | 1000   | 30000   | 1000 | true  | true  | LINGER    | -1
            default: a fast refresh, a short wait             | -1       | 1000   | 200     | 100  | true  | true  | REFRESH   | -1
            default: no refresh, waits out the linger         | -1       | 1000   | -1      | 999  | true  | true  | STAYS     | 1000
            default: no refresh, goes at the linger           | -1       | 1000   | -1      | 1000 | false | true  | LINGER    | -1
            eager: coalesced on an idle node                  | 5        | 1000   | 1000    | 5    | true  | true  | COALESCED | -1
            eager: coalescing                                 | 5        | 1000   | 1000    | 4    | true  | true  | STAYS     | 5
            eager: a busy node waits for the linger           | 5        | 1000   | 1000    | 500  | false | true  | STAYS     | 1000
            eager: lingered with a free place                 | 5        | 1000   | 1000    | 1000 | false | true  | LINGER    | -1
            eager: no free place, keeps filling               | 5        | 1000   | 1000    | 999  | false | false | STAYS     | 1000
            eager: no free place, goes at the linger          | 5        | 1000   | 1000    | 5000 | false | false | LINGER    | -1
            eager: zero goes at once on an idle node          | 0        | 1000   | 1000    | 0    | true  | true  | COALESCED | -1
            """)
    void aBufferThatIsNotFullGoesWhenTheRuleSays(
            String row,
            long coalesce,
            long linger,
            long refresh,
            long now,
            boolean idle,
            boolean room,
            DepartureRule.Why goes,
            long next) {
        DepartureRule rule = new DepartureRule(coalesce, linger);
        Slot slot = new Slot("logs", 0, refresh);
        slot.firstDocAtMillis = 0;

        assertThat(rule.decide(slot, now, idle, room)).as("goes now").isEqualTo(goes);
        if (goes == DepartureRule.Why.STAYS) {
            assertThat(rule.nextLook(slot, now, idle, room))
                    .as("looks again at")
                    .isEqualTo(next);
        }
    }
}
