package io.kes.connector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

class SinkSettingsTest {

    @Test
    void thePasswordIsNotPrintedAndOnlyTheRestClientsHeaderCarriesIt() {
        SinkSettings s = settings("elasticsearch.username", "writer", "elasticsearch.password", "s3cret-pw");

        assertThat(s.toString())
                .contains("username=writer", "password=<hidden>")
                .doesNotContain("s3cret-pw");
        assertThat(s.authorization())
                .isEqualTo("Basic "
                        + Base64.getEncoder().encodeToString("writer:s3cret-pw".getBytes(StandardCharsets.UTF_8)));
        assertThat(s.hasApiKey()).isFalse();
    }

    @Test
    void theApiKeyIsNotPrintedEither() {
        SinkSettings s = settings("elasticsearch.api_key", "a2V5LWlkOmtleS1zZWNyZXQ=");

        assertThat(s.toString()).contains("apiKey=<hidden>").doesNotContain("a2V5LWlkOmtleS1zZWNyZXQ=");
        assertThat(s.authorization()).isEqualTo("ApiKey a2V5LWlkOmtleS1zZWNyZXQ=");
        assertThat(s.hasApiKey()).isTrue();
    }

    @Test
    void withoutCredentialsThereIsNoHeader() {
        SinkSettings s = settings();

        assertThat(s.authorization()).isNull();
        assertThat(s.toString()).contains("password=null", "apiKey=null");
    }

    @Test
    void credentialsInAHostUrlAreRefusedNamingTheOptionsToUseAndNeverEchoed() {
        Configuration c = new Configuration();
        c.setString(
                ElasticsearchSinkOptions.HOSTS.key(),
                "http://localhost:9200;https://ingest-bot:s3cret-pw@es.example:9243");

        assertThatThrownBy(() -> SinkSettings.from(c))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("elasticsearch.hosts")
                .hasMessageContaining("elasticsearch.username")
                .hasMessageContaining("elasticsearch.password")
                .hasMessageContaining("https://es.example:9243")
                .hasMessageNotContaining("s3cret-pw")
                .hasMessageNotContaining("ingest-bot");
    }

    @Test
    void aMalformedHostUrlIsEchoedWithoutItsUserPart() {
        Configuration c = new Configuration();
        c.setString(ElasticsearchSinkOptions.HOSTS.key(), "https://writer:s3cret pw@es.example:9243");

        assertThatThrownBy(() -> SinkSettings.from(c))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("elasticsearch.hosts")
                .hasMessageNotContaining("s3cret");
    }

    @Test
    void noPublicMethodReturnsAPasswordOrAnApiKey() {
        assertThat(Arrays.stream(SinkSettings.class.getMethods())
                        .filter(m -> Modifier.isPublic(m.getModifiers()))
                        .map(Method::getName))
                .doesNotContain("password", "apiKey", "getPassword", "getApiKey");
        assertThat(Arrays.stream(SinkSettings.class.getFields()).filter(f -> !Modifier.isStatic(f.getModifiers())))
                .isEmpty();
    }

    private static SinkSettings settings(String... keysAndValues) {
        Configuration c = new Configuration();
        c.setString(ElasticsearchSinkOptions.HOSTS.key(), "http://localhost:9200");
        for (int i = 0; i < keysAndValues.length; i += 2) {
            c.setString(keysAndValues[i], keysAndValues[i + 1]);
        }
        return SinkSettings.from(c);
    }
}
