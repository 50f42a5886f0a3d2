package io.kes.connector.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Optional;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.Response;
import org.elasticsearch.client.ResponseException;
import org.elasticsearch.client.RestClient;

/** The GETs the metadata readers share: JSON answers, 404 as "not there", index names in paths. */
final class MetadataCalls {

    static final ObjectMapper JSON = new ObjectMapper();

    private final RestClient client;

    MetadataCalls(RestClient client) {
        this.client = client;
    }

    RestClient client() {
        return client;
    }

    static String expression(Collection<String> names) {
        return String.join(",", names.stream().map(MetadataCalls::encode).toList());
    }

    /** A GET whose 404 means "not there" (and a 400 "no handler" means the feature is absent). */
    Optional<JsonNode> get(Request request) throws IOException {
        try {
            Response response = client.performRequest(request);
            try (InputStream in = response.getEntity().getContent()) {
                return Optional.of(JSON.readTree(in));
            }
        } catch (ResponseException e) {
            int status = e.getResponse().getStatusLine().getStatusCode();
            if (status == 404 || status == 400) {
                return Optional.empty();
            }
            throw e;
        }
    }

    static String encode(String name) {
        return URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
