package io.kes.connector.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.ElasticsearchSink;
import io.kes.connector.SinkSettings;
import org.junit.jupiter.api.Test;

/** A 401 reads the same wherever kes meets it (a bulk, one write, the fence), and names the settings that hold the credentials. */
class RefusedCredentialsMessageTest {

    @Test
    void aRefusalWhileTheJobRunsNamesTheRequestAndTheCredentialSettings() {
        assertThat(PrivilegeCheck.credentialsRefused("a write to logs"))
                .isEqualTo(
                        "Elasticsearch refused kes's credentials for a write to logs (HTTP 401: wrong, expired or revoked): "
                                + "check elasticsearch.username and elasticsearch.password, or elasticsearch.api_key.");
    }

    @Test
    void aRefusalAtStartNamesTheCredentialsKesSent() {
        SinkSettings user = ElasticsearchSink.builder()
                .setHosts("http://h:9200")
                .setBasicAuth("kes", "pw")
                .build()
                .settings();
        SinkSettings apiKey = ElasticsearchSink.builder()
                .setHosts("http://h:9200")
                .setApiKey("k")
                .build()
                .settings();
        SinkSettings none =
                ElasticsearchSink.builder().setHosts("http://h:9200").build().settings();
        assertThat(PrivilegeCheck.refusedCredentials(user))
                .startsWith("Elasticsearch refused user 'kes' (HTTP 401")
                .contains("elasticsearch.username and elasticsearch.password");
        assertThat(PrivilegeCheck.refusedCredentials(apiKey))
                .startsWith("Elasticsearch refused kes's API key (HTTP 401")
                .contains("elasticsearch.api_key");
        assertThat(PrivilegeCheck.refusedCredentials(none)).startsWith("Elasticsearch requires credentials (HTTP 401)");
    }
}
