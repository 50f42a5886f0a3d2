package io.kes.connector.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.time.Duration;
import org.apache.http.HttpHost;
import org.junit.jupiter.api.Test;

class ClusterMetadataClientTest {

    @Test
    void aPublishedAddressWithAHostnameKeepsTheHostnameWhichCertificatesName() {
        assertThat(NodePlacement.httpHost("https", "es-data-1.example.com/10.0.0.5:9200"))
                .isEqualTo(new HttpHost("es-data-1.example.com", 9200, "https"));
    }

    @Test
    void aPublishedAddressWithoutHostnameUsesTheAddress() {
        assertThat(NodePlacement.httpHost("http", "127.0.0.1:9201")).isEqualTo(new HttpHost("127.0.0.1", 9201, "http"));
        assertThat(NodePlacement.httpHost("http", "/10.0.0.5:9200")).isEqualTo(new HttpHost("10.0.0.5", 9200, "http"));
        assertThat(NodePlacement.httpHost("http", "[::1]:9200").getPort()).isEqualTo(9200);
    }

    @Test
    void elasticsearchTimeValuesBecomeDurations() {
        assertThat(ClusterMetadataClient.timeValue("5s")).isEqualTo(Duration.ofSeconds(5));
        assertThat(ClusterMetadataClient.timeValue("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(ClusterMetadataClient.timeValue("1m")).isEqualTo(Duration.ofMinutes(1));
        assertThatThrownBy(() -> ClusterMetadataClient.timeValue("soon")).hasMessageContaining("'soon'");
    }

    @Test
    void anIndexsRefreshIntervalIsElasticsearchsDefaultWhenUnsetAndNoneForMinusOne() {
        JsonNodeFactory json = JsonNodeFactory.instance;
        assertThat(ClusterMetadataClient.refreshInterval(json.missingNode())).isEqualTo(Duration.ofSeconds(1));
        assertThat(ClusterMetadataClient.refreshInterval(json.textNode("30s"))).isEqualTo(Duration.ofSeconds(30));
        assertThat(ClusterMetadataClient.refreshInterval(json.textNode("-1"))).isEqualTo(IndexMetadata.NO_REFRESH);
    }
}
