package io.kes.connector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

class ElasticsearchSinkOptionsTest {

    /** The YAML loader reads only the listed options: one declared but not listed would be refused as an unknown key. */
    @Test
    void allListsEveryDeclaredOptionOnce() {
        ConfigOption<?>[] declared = Arrays.stream(ElasticsearchSinkOptions.class.getFields())
                .filter(f -> Modifier.isStatic(f.getModifiers()) && f.getType() == ConfigOption.class)
                .map(f -> {
                    try {
                        return (ConfigOption<?>) f.get(null);
                    } catch (IllegalAccessException e) {
                        throw new AssertionError(e);
                    }
                })
                .toArray(ConfigOption<?>[]::new);
        assertThat(ElasticsearchSinkOptions.all()).containsExactly(declared);
    }

    @Test
    void meaningIsTheDescriptionAsWritten() {
        assertThat(ElasticsearchSinkOptions.meaning(ElasticsearchSinkOptions.RETRY_MAX_BACKOFF))
                .isEqualTo("Longest wait between two retries.");
    }

    /** Descriptions are the reference's Markdown; a message carries none: code is plain text, a link its text and page. */
    @Test
    void meaningIsTheDescriptionWithoutMarkdown() {
        assertThat(ElasticsearchSinkOptions.meaning(ElasticsearchSinkOptions.BULK_COALESCE))
                .contains("half its index's index.refresh_interval (500 ms")
                .contains("waits out the linger (Freshness (docs/operations.md#freshness-when-a-buffer-goes)). Set:")
                .contains("for an indexed lag no search could see). 0: at once.");
    }

    /** A surface with its own names (a SQL table) declares an option again: same type, default and description. */
    @Test
    void anOptionUnderAnotherKeyIsTheSameDeclaration() {
        ConfigOption<Duration> linger =
                ElasticsearchSinkOptions.underKey(ElasticsearchSinkOptions.BULK_LINGER, "x.linger");
        assertThat(linger.key()).isEqualTo("x.linger");
        assertThat(linger.defaultValue()).isEqualTo(ElasticsearchSinkOptions.BULK_LINGER.defaultValue());
        assertThat(ElasticsearchSinkOptions.meaning(linger))
                .isEqualTo(ElasticsearchSinkOptions.meaning(ElasticsearchSinkOptions.BULK_LINGER));
        Configuration c = new Configuration();
        c.setString("x.linger", "250ms");
        assertThat(c.get(linger)).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void durabilityIsTypedAndDefaultsToTheFence() {
        assertThat(ElasticsearchSinkOptions.DURABILITY.defaultValue()).isEqualTo(Durability.CHECKPOINT_FENCE);
        assertThat(settingsWithDurability("request").durability()).isEqualTo(Durability.REQUEST);
        assertThat(settingsWithDurability("Checkpoint-Fence").durability()).isEqualTo(Durability.CHECKPOINT_FENCE);
    }

    /** Before the option was typed, the constant's name was accepted too; configs that use it must still load. */
    @Test
    void durabilityStillTakesTheConstantsName() {
        assertThat(settingsWithDurability("checkpoint_fence").durability()).isEqualTo(Durability.CHECKPOINT_FENCE);
        assertThat(settingsWithDurability(" REQUEST ").durability()).isEqualTo(Durability.REQUEST);
    }

    @Test
    void anUnknownDurabilityNamesTheAllowedValues() {
        assertThatThrownBy(() -> settingsWithDurability("sometimes"))
                .hasMessage("elasticsearch.durability must be checkpoint-fence or request, got 'sometimes'");
    }

    private static SinkSettings settingsWithDurability(String text) {
        Configuration c = new Configuration();
        c.setString(ElasticsearchSinkOptions.HOSTS.key(), "http://localhost:9200");
        c.setString(ElasticsearchSinkOptions.DURABILITY.key(), text);
        return SinkSettings.from(c);
    }
}
