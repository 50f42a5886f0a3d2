package io.kes.connector.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class ServerInfoTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void openSearchSaysSoInItsDistributionAndElasticsearchDoesNot() throws Exception {
        ServerInfo os =
                ServerInfo.parse(JSON.readTree("{\"version\":{\"distribution\":\"opensearch\",\"number\":\"3.3.0\"}}"));
        assertThat(os.openSearch()).isTrue();
        assertThat(os).hasToString("OpenSearch 3.3.0");
        ServerInfo es =
                ServerInfo.parse(JSON.readTree("{\"version\":{\"number\":\"9.5.4\",\"build_flavor\":\"default\"}}"));
        assertThat(es.openSearch()).isFalse();
        assertThat(es).hasToString("Elasticsearch 9.5.4");
    }
}
