package io.kes.connector.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.kes.connector.ElasticsearchSink;
import io.kes.connector.SinkSettings;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.RestClient;
import org.junit.jupiter.api.Test;

/**
 * The client kes builds authenticates every request by its default header alone: it answers no
 * challenge and keeps no auth cache (which would cost a deserialization per request), so the
 * credentials must be on the first request already, and on every one after it.
 */
class RestClientsTest {

    @Test
    void everyRequestCarriesTheCredentialsWithoutWaitingForAChallenge() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            String authorization = exchange.getRequestHeaders().getFirst("Authorization");
            seen.add(String.valueOf(authorization));
            // a node that challenges a request without credentials
            int status = authorization == null ? 401 : 200;
            if (status == 401) {
                exchange.getResponseHeaders().add("WWW-Authenticate", "Basic realm=\"security\"");
            }
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            SinkSettings settings = ElasticsearchSink.builder()
                    .setHosts("http://127.0.0.1:" + server.getAddress().getPort())
                    .setBasicAuth("writer", "s3cret")
                    .build()
                    .settings();
            try (RestClient client = RestClients.create(settings)) {
                for (int i = 0; i < 3; i++) {
                    assertThat(client.performRequest(new Request("GET", "/"))
                                    .getStatusLine()
                                    .getStatusCode())
                            .isEqualTo(200);
                }
            }
        } finally {
            server.stop(0);
        }
        String basic = "Basic " + Base64.getEncoder().encodeToString("writer:s3cret".getBytes(StandardCharsets.UTF_8));
        assertThat(seen).containsExactly(basic, basic, basic);
    }
}
