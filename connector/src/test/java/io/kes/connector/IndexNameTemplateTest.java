package io.kes.connector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class IndexNameTemplateTest {

    @Test
    void aNameWithoutPlaceholdersIsLiteralAndRendersAsItIs() {
        IndexNameTemplate t = IndexNameTemplate.parse("orders");
        assertThat(t.isLiteral()).isTrue();
        assertThat(t.names()).isEmpty();
        assertThat(t.wildcardPattern()).isEqualTo("orders");
        assertThat(t.render(p -> {
                    throw new AssertionError();
                }))
                .isEqualTo("orders");
    }

    @Test
    void placeholdersNameTheirFieldsOnceAndGiveTheWildcardPattern() {
        IndexNameTemplate t = IndexNameTemplate.parse("logs-{service}-{@timestamp|yyyy.MM.dd}-{service}");
        assertThat(t.isLiteral()).isFalse();
        assertThat(t.names()).isEqualTo(List.of("service", "@timestamp"));
        assertThat(t.wildcardPattern()).isEqualTo("logs-*-*-*");
        assertThat(t.fill("x")).isEqualTo("logs-x-x-x");
        assertThat(IndexNameTemplate.parse("{a}{b}").wildcardPattern()).isEqualTo("*");
    }

    @Test
    void rendersValuesAndDatesInUtcLowercased() {
        IndexNameTemplate t = IndexNameTemplate.parse("logs-{service}-{ts|yyyy.MM.dd}");
        Instant time = Instant.parse("2026-11-23T23:30:00Z");
        assertThat(t.render(p -> p.isDate() ? p.format(time) : "Checkout")).isEqualTo("logs-checkout-2026.11.23");
    }

    @Test
    void unbalancedBracesAndBadDatePatternsSayWhatIsWrong() {
        assertThatThrownBy(() -> IndexNameTemplate.parse("logs-{service"))
                .hasMessage(
                        "'logs-{service' has unbalanced braces; placeholders look like {service} or {@timestamp|yyyy.MM.dd}");
        assertThatThrownBy(() -> IndexNameTemplate.parse("logs-{ts|yyyy.bb}"))
                .hasMessageStartingWith("has an invalid date pattern 'yyyy.bb' in {ts|yyyy.bb}");
    }
}
