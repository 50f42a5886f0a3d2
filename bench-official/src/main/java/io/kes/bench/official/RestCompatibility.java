package io.kes.bench.official;

import org.apache.http.Header;
import org.apache.http.message.BasicHeader;

/**
 * The REST API compatibility headers the official sink's Elasticsearch 7.10 client must send to an
 * Elasticsearch 8 node ({@code Accept} and {@code Content-Type:
 * application/vnd.elasticsearch+json;compatible-with=7}), so that the node answers in the 7.x
 * dialect (with {@code _type}) that the client parses. On when the system property
 * {@code kes.bench.official.compatible-with} names a major version (the bench sets 7 for
 * Elasticsearch 8); the bench's copy of {@code RestClientBuilder} makes them every client's
 * default headers.
 */
public final class RestCompatibility {

    public static final String PROPERTY = "kes.bench.official.compatible-with";

    private RestCompatibility() {}

    public static Header[] headers() {
        String version = System.getProperty(PROPERTY, "");
        if (version.isBlank()) {
            return new Header[0];
        }
        String type = "application/vnd.elasticsearch+json;compatible-with=" + version.trim();
        return new Header[] {new BasicHeader("Accept", type), new BasicHeader("Content-Type", type)};
    }
}
