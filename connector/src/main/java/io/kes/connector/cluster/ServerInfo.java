package io.kes.connector.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import org.apache.flink.annotation.Internal;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.RestClient;

/**
 * What answers at the configured hosts, from {@code GET /}: OpenSearch says
 * {@code version.distribution: opensearch}; Elasticsearch names no distribution (or {@code default}).
 * Routing, the fence and bulks work the same on both; what differs is which APIs exist (OpenSearch
 * has no {@code _security/user/_has_privileges}).
 */
@Internal
public record ServerInfo(boolean openSearch, String version) {

    private static final ObjectMapper JSON = new ObjectMapper();

    public static ServerInfo fetch(RestClient client) throws IOException {
        try (InputStream in =
                client.performRequest(new Request("GET", "/")).getEntity().getContent()) {
            return parse(JSON.readTree(in));
        }
    }

    static ServerInfo parse(JsonNode root) {
        JsonNode version = root.path("version");
        return new ServerInfo(
                "opensearch".equals(version.path("distribution").asText("")),
                version.path("number").asText("unknown"));
    }

    @Override
    public String toString() {
        return (openSearch ? "OpenSearch " : "Elasticsearch ") + version;
    }
}
