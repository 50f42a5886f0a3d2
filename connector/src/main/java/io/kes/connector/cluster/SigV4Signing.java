package io.kes.connector.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.http.Header;
import org.apache.http.HttpEntity;
import org.apache.http.HttpEntityEnclosingRequest;
import org.apache.http.HttpException;
import org.apache.http.HttpHost;
import org.apache.http.HttpRequest;
import org.apache.http.HttpRequestInterceptor;
import org.apache.http.protocol.HttpContext;
import org.apache.http.protocol.HttpCoreContext;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

/**
 * Signs each request the REST client sends with AWS Signature V4, through the AWS SDK's own signer
 * ({@link AwsV4HttpSigner}): an interceptor of the HTTP client, so that every request kes sends
 * (bulks, metadata reads, the fence, task listings, {@code bin/kes check}) is signed without any
 * of them knowing. It runs after the HTTP client's own interceptors, so it signs the request as it
 * goes out: the {@code Host} and {@code Content-Length} the client set, and the body as sent (a
 * gzip-compressed bulk is signed compressed). Every header is signed (the SDK leaves out those a
 * proxy may change, such as {@code Connection} and {@code User-Agent}), and the signer puts the body's
 * SHA-256 in {@code x-amz-content-sha256}, which OpenSearch Serverless requires, and signs it too.
 *
 * <p>Credentials come from the SDK's default chain, resolved for each request: the chain caches
 * them and renews temporary ones (a role's) before they expire.
 */
@Internal
public final class SigV4Signing implements HttpRequestInterceptor {

    static final String CONTENT_SHA256 = "x-amz-content-sha256";
    /** What this class adds; removed before signing, so that a request sent again is signed anew. */
    private static final List<String> ADDED =
            List.of("Authorization", "X-Amz-Date", "X-Amz-Security-Token", CONTENT_SHA256);

    private final AwsV4HttpSigner signer = AwsV4HttpSigner.create();
    private final AwsSigV4 settings;
    private final AwsCredentialsProvider credentials;
    private final Clock clock;

    SigV4Signing(AwsSigV4 settings, AwsCredentialsProvider credentials, Clock clock) {
        this.settings = settings;
        this.credentials = credentials;
        this.clock = clock;
    }

    /** Signing with the SDK's default credential chain and the system clock. */
    static SigV4Signing of(AwsSigV4 settings) {
        return new SigV4Signing(settings, DefaultCredentialsProvider.builder().build(), Clock.systemUTC());
    }

    @Override
    public void process(HttpRequest request, HttpContext context) throws HttpException, IOException {
        HttpHost target = (HttpHost) context.getAttribute(HttpCoreContext.HTTP_TARGET_HOST);
        ADDED.forEach(request::removeHeaders);
        byte[] body = body(request);
        SdkHttpRequest.Builder unsigned = SdkHttpRequest.builder()
                .method(SdkHttpMethod.fromValue(request.getRequestLine().getMethod()))
                .uri(URI.create(target.toURI() + request.getRequestLine().getUri()));
        for (Header header : request.getAllHeaders()) {
            unsigned.appendHeader(header.getName(), header.getValue());
        }
        AwsCredentialsIdentity identity;
        try {
            identity = credentials.resolveCredentials();
        } catch (
                RuntimeException
                        e) { // thrown on the client's I/O thread it would end the client: the request fails instead
            throw new NoCredentials(e);
        }
        SignedRequest signed = signer.sign(r -> r.identity(identity)
                .request(unsigned.build())
                .payload(ContentStreamProvider.fromByteArrayUnsafe(body))
                .putProperty(AwsV4HttpSigner.REGION_NAME, settings.region())
                .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, settings.service())
                .putProperty(HttpSigner.SIGNING_CLOCK, clock));
        for (Map.Entry<String, List<String>> header : signed.request().headers().entrySet()) {
            if (!request.containsHeader(header.getKey())) {
                for (String value : header.getValue()) {
                    request.addHeader(header.getKey(), value);
                }
            }
        }
    }

    /** The SDK's default chain found no credentials: the request is not sent. */
    public static final class NoCredentials extends IOException {
        NoCredentials(RuntimeException cause) {
            super(
                    "kes found no AWS credentials to sign with (elasticsearch.aws_sigv4): " + cause.getMessage()
                            + " Give them to every TaskManager and the JobManager: AWS_ACCESS_KEY_ID and "
                            + "AWS_SECRET_ACCESS_KEY, AWS_PROFILE, a web identity token, or a container or instance role.",
                    cause);
        }
    }

    /** The body as it goes out; the REST client's bodies are byte arrays, which can be read twice. */
    private static byte[] body(HttpRequest request) throws IOException {
        if (!(request instanceof HttpEntityEnclosingRequest enclosing) || enclosing.getEntity() == null) {
            return new byte[0];
        }
        HttpEntity entity = enclosing.getEntity();
        if (!entity.isRepeatable()) {
            throw new IllegalStateException("kes cannot sign a streamed request body for elasticsearch.aws_sigv4: "
                    + "the body is read once to sign it and once to send it");
        }
        try (InputStream in = entity.getContent()) {
            return in.readAllBytes();
        }
    }
}
