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

    @Test
    void awsSigV4OnADomainSendsBulksToTheEndpointAndKeepsShardsAndTheFence() {
        SinkSettings s = settings("elasticsearch.aws_sigv4.region", "eu-west-1");

        assertThat(s.awsSigV4()).isEqualTo(new io.kes.connector.cluster.AwsSigV4("eu-west-1", "es"));
        assertThat(s.authorization()).isNull();
        assertThat(s.primaryNodeRouting())
                .as("a domain's nodes are reached through its endpoint")
                .isFalse();
        assertThat(s.shardGrouping()).isTrue();
        assertThat(s.durability()).isEqualTo(Durability.CHECKPOINT_FENCE);
    }

    @Test
    void awsSigV4OnServerlessSendsMixedBulksAndWaitsForAcknowledgementsOnly() {
        SinkSettings s =
                settings("elasticsearch.aws_sigv4.region", "us-east-1", "elasticsearch.aws_sigv4.service", "aoss");

        assertThat(s.awsSigV4().serverless()).isTrue();
        assertThat(s.shardGrouping()).as("Serverless shows no shards").isFalse();
        assertThat(s.durability()).as("no _stats for the fence").isEqualTo(Durability.REQUEST);
        assertThat(s.primaryNodeRouting()).isFalse();
    }

    @Test
    void awsSigV4SettingsAreCheckedNamingTheKey() {
        assertThatThrownBy(() -> settings("elasticsearch.aws_sigv4.service", "aoss"))
                .hasMessageContaining("elasticsearch.aws_sigv4.region is not");
        for (String region : new String[] {"us-gov-west-1", "ap-southeast-2", "eusc-de-east-1", "cn-north-1"}) {
            assertThat(settings("elasticsearch.aws_sigv4.region", region)
                            .awsSigV4()
                            .region())
                    .isEqualTo(region);
        }
        assertThatThrownBy(() -> settings("elasticsearch.aws_sigv4.region", "Frankfurt"))
                .hasMessageContaining("elasticsearch.aws_sigv4.region must be an AWS region like us-east-1");
        assertThatThrownBy(() -> settings(
                        "elasticsearch.aws_sigv4.region", "us-east-1", "elasticsearch.aws_sigv4.service", "opensearch"))
                .hasMessageContaining("elasticsearch.aws_sigv4.service must be 'es'")
                .hasMessageContaining("'aoss'");
        assertThatThrownBy(() -> settings(
                        "elasticsearch.aws_sigv4.region",
                        "us-east-1",
                        "elasticsearch.username",
                        "writer",
                        "elasticsearch.password",
                        "s3cret-pw"))
                .hasMessageContaining("elasticsearch.aws_sigv4 signs requests with AWS credentials")
                .hasMessageContaining("remove")
                .hasMessageNotContaining("s3cret-pw");
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
