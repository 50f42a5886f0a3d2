package io.kes.connector.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.connector.ElasticsearchSink;
import io.kes.connector.SinkPipelines;
import io.kes.stack.Engine;
import io.kes.stack.Http;
import io.kes.stack.SearchNode;
import io.kes.stack.SharedServers;
import io.kes.stack.StackLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The sink writes to OpenSearch through a proxy that checks every request's SigV4 signature as
 * Amazon OpenSearch Service does ({@link VerifyingProxy}) and refuses with 403 any whose signature
 * does not hold: with the right secret every request passes (bulks, gzip-compressed, the shard
 * prediction's metadata reads, the checkpoint fence, the task listing) and every document is
 * there; with a wrong secret the job stops at once with an error that names
 * {@code elasticsearch.aws_sigv4} and AWS's reason. The credentials reach kes as the SDK's default
 * chain finds them in a process's settings: here its system properties {@code aws.accessKeyId}
 * and {@code aws.secretAccessKey}, the JVM's twins of {@code AWS_ACCESS_KEY_ID} and
 * {@code AWS_SECRET_ACCESS_KEY}, which come after them in the chain.
 */
class AwsSigV4IT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ACCESS_KEY = "AKIDKESSIGV4TEST";
    private static final String SECRET = "kes/sigv4+test-secret";
    private static final String REGION = "eu-west-1";

    private SearchNode node;
    private VerifyingProxy proxy;

    @BeforeEach
    void proxyInFrontOfOpenSearch() throws Exception {
        node = SharedServers.node(Engine.OPENSEARCH, StackLayout.fromBuild().opensearch3Version());
        proxy = new VerifyingProxy(
                new SigV4Verifier(REGION, "es", id -> ACCESS_KEY.equals(id) ? SECRET : null), node.url());
        System.setProperty("aws.accessKeyId", ACCESS_KEY);
    }

    @AfterEach
    void closeProxy() {
        proxy.close();
        System.clearProperty("aws.accessKeyId");
        System.clearProperty("aws.secretAccessKey");
    }

    @Test
    void everyRequestIsSignedAndEveryDocumentArrives() throws Exception {
        System.setProperty("aws.secretAccessKey", SECRET);
        Http http = node.http();
        http.send("DELETE", "/signed?ignore_unavailable=true", null);
        http.send("PUT", "/signed", "{\"settings\":{\"number_of_shards\":3,\"number_of_replicas\":0}}")
                .requireOk("create");
        int documents = 3000;
        ElasticsearchSink sink = ElasticsearchSink.builder()
                .setHosts(proxy.url())
                .setAwsSigV4(REGION, "es")
                .setGzip(true)
                .setBulkMaxDocs(200)
                .build();

        SinkPipelines.start(sink, "signed", documents, 1500, 2, Duration.ofMillis(300))
                .getJobExecutionResult()
                .get();

        assertThat(proxy.refused).as("requests whose signature did not hold").isEmpty();
        List<String> passed = new ArrayList<>(proxy.passed);
        assertThat(passed)
                .as("signed requests of each kind")
                .anyMatch(r -> r.equals("POST /_bulk"))
                .anyMatch(r -> r.contains("/_cluster/state"))
                .anyMatch(r -> r.contains("/_stats") || r.contains("/_flush"))
                .anyMatch(r -> r.equals("GET /_tasks"));
        assertThat(stored(http, "signed", documents))
                .as("every document, with its own source")
                .isEqualTo(expected(documents));
    }

    /**
     * As OpenSearch Serverless: the signature scoped to {@code aoss}, the payload hash required, and
     * the APIs a collection lacks answered 404 (cluster state and health, {@code _stats},
     * {@code _cat/shards}, tasks, nodes, {@code _flush}, {@code _search_shards}, settings and
     * {@code GET /}). The sink falls back to mixed bulks and acknowledgements and writes every
     * document.
     */
    @Test
    void onServerlessTheSinkWritesWithoutTheApisACollectionLacks() throws Exception {
        proxy.close();
        proxy = new VerifyingProxy(
                new SigV4Verifier(REGION, "aoss", id -> ACCESS_KEY.equals(id) ? SECRET : null),
                node.url(),
                Set.of(
                        "/",
                        "/_cluster/",
                        "/_stats",
                        "/_cat/shards",
                        "/_tasks",
                        "/_nodes",
                        "/_flush",
                        "/_search_shards",
                        "/_settings"));
        System.setProperty("aws.secretAccessKey", SECRET);
        Http http = node.http();
        http.send("DELETE", "/collection?ignore_unavailable=true", null);
        int documents = 2000;
        ElasticsearchSink sink = ElasticsearchSink.builder()
                .setHosts(proxy.url())
                .setAwsSigV4(REGION, "aoss")
                .build();

        SinkPipelines.start(sink, "collection", documents, 1000, 2, Duration.ofMillis(300))
                .getJobExecutionResult()
                .get();

        assertThat(proxy.refused).as("requests whose signature did not hold").isEmpty();
        assertThat(new ArrayList<>(proxy.passed)).anyMatch(r -> r.equals("POST /_bulk"));
        assertThat(stored(http, "collection", documents)).isEqualTo(expected(documents));
    }

    @Test
    void aWrongSecretStopsTheJobNamingTheSettingAndAwsReason() throws Exception {
        System.setProperty("aws.secretAccessKey", "not-" + SECRET);
        ElasticsearchSink sink = ElasticsearchSink.builder()
                .setHosts(proxy.url())
                .setAwsSigV4(REGION, "es")
                .build();

        assertThatThrownBy(() -> SinkPipelines.run(sink, "refused", 10, 1))
                .satisfies(failure -> assertThat(messages(failure))
                        .contains("AWS refused kes's SigV4-signed request (HTTP 403)")
                        .contains("The request signature we calculated does not match")
                        .contains("AWS_SECRET_ACCESS_KEY")
                        .contains("elasticsearch.aws_sigv4.region (" + REGION + ")")
                        .doesNotContain(SECRET));
        assertThat(proxy.passed).as("nothing reached the node").isEmpty();
    }

    private static Map<String, Long> stored(Http http, String index, int documents) throws Exception {
        http.send("POST", "/" + index + "/_refresh", null).requireOk("refresh");
        JsonNode hits = JSON.readTree(http.get("/" + index + "/_search?size=" + documents
                                + "&filter_path=hits.hits._id,hits.hits._source")
                        .requireOk("search")
                        .body())
                .path("hits")
                .path("hits");
        Map<String, Long> stored = new TreeMap<>();
        hits.forEach(hit -> stored.put(
                hit.path("_id").asText(), hit.path("_source").path("n").asLong()));
        return stored;
    }

    private static Map<String, Long> expected(int documents) {
        Map<String, Long> expected = new TreeMap<>();
        for (long i = 0; i < documents; i++) {
            expected.put("doc-" + i, i);
        }
        return expected;
    }

    private static String messages(Throwable failure) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        return all.toString();
    }
}
