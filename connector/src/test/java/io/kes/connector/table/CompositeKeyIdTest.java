package io.kes.connector.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CompositeKeyIdTest {

    @Test
    void withoutEscapingTheValuesAreJoinedAsFlinksOwnConnectorsJoinThem() {
        CompositeKeyId official = new CompositeKeyId("_", false);

        assertThat(official.of(new String[] {"a_b", "c"})).isEqualTo("a_b_c");
        assertThat(official.of(new String[] {"a", "b_c"}))
                .as("the collision escaping exists for")
                .isEqualTo("a_b_c");
    }

    @Test
    void escapedKeysThatDifferNeverShareAnId() {
        for (String delimiter : List.of("_", "||", "-x-", "aa")) {
            CompositeKeyId escaped = new CompositeKeyId(delimiter, true);
            Map<String, List<String>> keyOfId = new HashMap<>();
            Random random = new Random(26);
            String alphabet = "a_\\|-x";
            for (int n = 0; n < 50_000; n++) {
                String[] values = new String[2 + random.nextInt(2)];
                for (int v = 0; v < values.length; v++) {
                    StringBuilder value = new StringBuilder();
                    for (int c = random.nextInt(5); c > 0; c--) {
                        value.append(alphabet.charAt(random.nextInt(alphabet.length())));
                    }
                    values[v] = value.toString();
                }
                List<String> key = List.of(values);
                List<String> earlier = keyOfId.putIfAbsent(escaped.of(values), key);
                assertThat(earlier == null || earlier.equals(key))
                        .as(
                                "delimiter '%s': %s and %s made the same id %s",
                                delimiter, earlier, key, escaped.of(values))
                        .isTrue();
            }
        }
    }

    @Test
    void escapingKeepsTheIdOfValuesWithoutTheDelimiterOrABackslash() {
        assertThat(new CompositeKeyId("_", true).of(new String[] {"eu-1", "42"}))
                .isEqualTo("eu-1_42");
        assertThat(new CompositeKeyId("_", true).of(new String[] {"a_b", "c\\"}))
                .isEqualTo("a\\_b_c\\\\");
    }
}
