package io.kes.connector.cluster;

import io.kes.connector.SinkSettings;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import org.apache.flink.annotation.Internal;
import org.apache.http.Header;
import org.apache.http.HttpHost;
import org.apache.http.impl.nio.reactor.IOReactorConfig;
import org.apache.http.message.BasicHeader;
import org.elasticsearch.client.NodeSelector;
import org.elasticsearch.client.RestClient;
import org.elasticsearch.client.RestClientBuilder;

/** Builds the low-level REST client from the sink's settings (hosts, auth or AWS SigV4, prefix, timeouts). */
@Internal
public final class RestClients {

    private RestClients() {}

    public static RestClient create(SinkSettings settings) {
        return create(settings, NodeSelector.ANY);
    }

    /** With a node selector, e.g. a {@link TargetNodeSelector} for nodes added later with {@code setNodes}. */
    public static RestClient create(SinkSettings settings, NodeSelector nodeSelector) {
        return create(settings, hosts(settings), nodeSelector);
    }

    /**
     * A client of one node only, with the sink's credentials and timeouts: a request through it
     * reaches that node or fails. The shared client cannot promise that: a node it marked dead
     * after a timeout is skipped, and the request answered by another.
     */
    static RestClient forNode(SinkSettings settings, HttpHost node) {
        return create(settings, new HttpHost[] {node}, NodeSelector.ANY);
    }

    /**
     * Each client runs one I/O thread: it serves one writer's few connections (or one task's
     * metadata reads), and the HTTP client's default, a thread per core, gives a TaskManager with a
     * writer per core as many threads as the square of its cores.
     */
    private static RestClient create(SinkSettings settings, HttpHost[] hosts, NodeSelector nodeSelector) {
        List<Header> headers = new ArrayList<>();
        String authorization = settings.authorization();
        if (authorization != null) {
            headers.add(new BasicHeader("Authorization", authorization));
        }
        SSLContext ssl = TlsContexts.forSettings(settings);
        SigV4Signing signing = settings.awsSigV4() == null ? null : SigV4Signing.of(settings.awsSigV4());
        RestClientBuilder builder = RestClient.builder(hosts)
                .setNodeSelector(nodeSelector)
                .setDefaultHeaders(headers.toArray(Header[]::new))
                .setCompressionEnabled(false)
                .setRequestConfigCallback(rc -> rc.setConnectTimeout(
                                (int) settings.connectTimeout().toMillis())
                        .setSocketTimeout((int) settings.socketTimeout().toMillis()))
                .setHttpClientConfigCallback(hc -> {
                    // kes authenticates with a default header and gives the client no credentials, so
                    // the auth cache RestClient sets on every request only costs: reading it
                    // deserializes a BasicScheme per request, 3.4% of a steady writer's CPU
                    // (docs/benchmark.md, What we tried: "No auth cache")
                    hc.disableAuthCaching();
                    // every node holding primaries gets its own max_in_flight bulks, not only the configured hosts
                    hc.setMaxConnTotal(Math.max(30, settings.maxInFlight() * Math.max(hosts.length, 8) * 2))
                            .setMaxConnPerRoute(Math.max(10, settings.maxInFlight() * 2));
                    if (ssl != null) {
                        hc.setSSLContext(ssl);
                    }
                    if (signing != null) {
                        hc.addInterceptorLast(signing); // last: it signs the Host and Content-Length set before it
                    }
                    hc.setDefaultIOReactorConfig(
                            IOReactorConfig.custom().setIoThreadCount(1).build());
                    return hc;
                });
        if (settings.pathPrefix() != null) {
            builder.setPathPrefix(settings.pathPrefix());
        }
        return builder.build();
    }

    /** The configured {@code elasticsearch.hosts}. */
    public static HttpHost[] hosts(SinkSettings settings) {
        return settings.hosts().stream()
                .map(u -> new HttpHost(u.getHost(), u.getPort() > 0 ? u.getPort() : defaultPort(u), u.getScheme()))
                .toArray(HttpHost[]::new);
    }

    private static int defaultPort(URI uri) {
        return "https".equals(uri.getScheme()) ? 443 : 9200;
    }
}
