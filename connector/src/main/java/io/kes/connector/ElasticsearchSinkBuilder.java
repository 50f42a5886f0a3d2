package io.kes.connector;

import static io.kes.connector.ElasticsearchSinkOptions.*;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;

/**
 * Builds an {@link ElasticsearchSink}. Every setter maps to one option of
 * {@link ElasticsearchSinkOptions}; {@link #build()} validates them all at once and says what is
 * wrong and how to fix it.
 */
@PublicEvolving
public final class ElasticsearchSinkBuilder {

    private final Configuration options = new Configuration();
    private FailureHandler failureHandler = FailureHandler.failJob();

    ElasticsearchSinkBuilder() {}

    public ElasticsearchSinkBuilder setHosts(String... urls) {
        options.set(HOSTS, List.of(urls));
        return this;
    }

    public ElasticsearchSinkBuilder setBasicAuth(String username, String password) {
        options.set(USERNAME, username);
        options.set(PASSWORD, password);
        return this;
    }

    public ElasticsearchSinkBuilder setApiKey(String apiKey) {
        options.set(API_KEY, apiKey);
        return this;
    }

    /**
     * Signs every request with AWS SigV4 for {@code region} and {@code service} ({@code es}: an
     * Amazon OpenSearch Service domain, {@code aoss}: a Serverless collection), with credentials from
     * the AWS SDK's default chain; see {@link ElasticsearchSinkOptions#AWS_SIGV4_REGION}.
     */
    public ElasticsearchSinkBuilder setAwsSigV4(String region, String service) {
        options.set(AWS_SIGV4_REGION, region);
        options.set(AWS_SIGV4_SERVICE, service);
        return this;
    }

    public ElasticsearchSinkBuilder setPathPrefix(String pathPrefix) {
        options.set(PATH_PREFIX, pathPrefix);
        return this;
    }

    public ElasticsearchSinkBuilder setGzip(boolean gzip) {
        options.set(GZIP, gzip);
        return this;
    }

    /** {@link Durability#CHECKPOINT_FENCE} by default. */
    public ElasticsearchSinkBuilder setDurability(Durability durability) {
        options.set(DURABILITY, durability);
        return this;
    }

    public ElasticsearchSinkBuilder setBulkMaxDocs(int maxDocs) {
        options.set(BULK_MAX_DOCS, maxDocs);
        return this;
    }

    public ElasticsearchSinkBuilder setBulkMaxBytes(MemorySize maxBytes) {
        options.set(BULK_MAX_BYTES, maxBytes);
        return this;
    }

    public ElasticsearchSinkBuilder setBulkLinger(Duration linger) {
        options.set(BULK_LINGER, linger);
        return this;
    }

    /** See {@link ElasticsearchSinkOptions#BULK_COALESCE}. */
    public ElasticsearchSinkBuilder setBulkCoalesce(Duration coalesce) {
        options.set(BULK_COALESCE, coalesce);
        return this;
    }

    public ElasticsearchSinkBuilder setMaxInFlight(int maxInFlight) {
        options.set(BULK_MAX_IN_FLIGHT, maxInFlight);
        return this;
    }

    /** On by default; off sends mixed bulks, as other sinks do. */
    public ElasticsearchSinkBuilder setShardGrouping(boolean enabled) {
        options.set(SHARD_GROUPING, enabled);
        return this;
    }

    /** {@code AUTO} by default (keyed from 4 writers up): see {@link ElasticsearchSinkOptions#TOPOLOGY}. */
    public ElasticsearchSinkBuilder setTopology(ElasticsearchSinkOptions.Topology topology) {
        options.set(TOPOLOGY, topology);
        return this;
    }

    public ElasticsearchSinkBuilder setRetry(Duration initialBackoff, Duration maxBackoff, Duration maxTime) {
        options.set(RETRY_INITIAL_BACKOFF, initialBackoff);
        options.set(RETRY_MAX_BACKOFF, maxBackoff);
        options.set(RETRY_MAX_TIME, maxTime);
        return this;
    }

    /** Sets any option by its {@link ElasticsearchSinkOptions} declaration. */
    public <T> ElasticsearchSinkBuilder set(ConfigOption<T> option, T value) {
        options.set(option, value);
        return this;
    }

    /** Takes every option present in {@code configuration} (e.g. from the job's YAML). */
    public ElasticsearchSinkBuilder setAll(Configuration configuration) {
        options.addAll(configuration);
        return this;
    }

    /** Where writes Elasticsearch refuses for good go; by default the job fails naming the record. */
    public ElasticsearchSinkBuilder setFailureHandler(FailureHandler failureHandler) {
        this.failureHandler = Objects.requireNonNull(failureHandler, "failureHandler");
        return this;
    }

    public ElasticsearchSink build() {
        return new ElasticsearchSink(SinkSettings.from(options), failureHandler);
    }
}
