package io.kes.connector.cluster;

import static io.kes.connector.ElasticsearchSinkOptions.API_KEY;
import static io.kes.connector.ElasticsearchSinkOptions.AWS_SIGV4_REGION;
import static io.kes.connector.ElasticsearchSinkOptions.AWS_SIGV4_SERVICE;
import static io.kes.connector.ElasticsearchSinkOptions.PASSWORD;
import static io.kes.connector.ElasticsearchSinkOptions.USERNAME;

import java.io.Serializable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code elasticsearch.aws_sigv4}: the AWS region and service whose Signature V4 signs every
 * request kes sends ({@link SigV4Signing}), and what kes can do on each service.
 *
 * <p>An OpenSearch Service domain ({@code es}) answers the APIs kes reads (routing, {@code _stats},
 * {@code _tasks}, {@code _flush}), but only at its endpoint: its nodes' published addresses are
 * inside AWS, so bulks go to {@code elasticsearch.hosts}, not to each primary's node. A Serverless
 * collection ({@code aoss}) has no shards to see: no routing table, {@code _stats}, {@code _cat/shards},
 * tasks or refresh settings. There kes sends mixed bulks (shard grouping off) and a checkpoint waits
 * for acknowledgements only (durability {@code request}: Serverless stores a write durably before it
 * acknowledges it).
 */
@Internal
public record AwsSigV4(String region, String service) implements Serializable {

    private static final Logger LOG = LoggerFactory.getLogger(AwsSigV4.class);

    public static final String DOMAIN = "es";
    public static final String SERVERLESS = "aoss";

    /** The settings of {@code c}, checked; null when {@code elasticsearch.aws_sigv4.region} is not set. */
    public static AwsSigV4 from(Configuration c) {
        String region = c.get(AWS_SIGV4_REGION);
        String service = c.get(AWS_SIGV4_SERVICE).trim();
        if (region == null || region.isBlank()) {
            check(
                    !c.contains(AWS_SIGV4_SERVICE),
                    AWS_SIGV4_SERVICE.key() + " is set but " + AWS_SIGV4_REGION.key()
                            + " is not: give the region of the domain or collection, e.g. us-east-1");
            return null;
        }
        check(
                region.trim().matches("[a-z]{2,}(-[a-z]+)+-\\d+"),
                AWS_SIGV4_REGION.key() + " must be an AWS region like us-east-1, got '" + region + "'");
        check(
                DOMAIN.equals(service) || SERVERLESS.equals(service),
                AWS_SIGV4_SERVICE.key() + " must be 'es' (an Amazon OpenSearch Service domain) or 'aoss' "
                        + "(an OpenSearch Serverless collection), got '" + service + "'");
        check(
                c.get(USERNAME) == null && c.get(PASSWORD) == null && c.get(API_KEY) == null,
                "elasticsearch.aws_sigv4 signs requests with AWS credentials, which replace "
                        + USERNAME.key() + "/" + PASSWORD.key() + " and " + API_KEY.key()
                        + ": remove those (the domain's fine-grained access control maps the IAM role to a user)");
        AwsSigV4 signing = new AwsSigV4(region.trim(), service);
        signing.logFallbacks();
        return signing;
    }

    /** A Serverless collection: no shards, no fence. */
    public boolean serverless() {
        return SERVERLESS.equals(service);
    }

    /** What kes can and cannot do on this service, as {@code bin/kes check} says it. */
    public String whatKesDoes() {
        return serverless()
                ? "OpenSearch Serverless collection in " + region + ": no shard routing, _stats, _cat/shards, "
                        + "tasks or refresh settings, so kes sends mixed bulks (bulk.shard_grouping off), a checkpoint "
                        + "waits for acknowledgements only (elasticsearch.durability: request; Serverless acknowledges "
                        + "a write once it is stored durably), and a bulk that got no answer is sent again without "
                        + "asking whether it still runs"
                : "Amazon OpenSearch Service domain in " + region + ": single-shard bulks and the checkpoint fence "
                        + "as on any cluster; bulks go to elasticsearch.hosts (the domain's endpoint), not to each "
                        + "primary's node";
    }

    private void logFallbacks() {
        if (serverless()) {
            LOG.warn("elasticsearch.aws_sigv4: {}", whatKesDoes());
        } else {
            LOG.info("elasticsearch.aws_sigv4: {}", whatKesDoes());
        }
    }

    /**
     * What to tell the user when AWS refused a signed request (HTTP 401 or 403): {@code answer} is
     * AWS's own reason, e.g. that the signature does not match.
     */
    public String refused(int status, String answer) {
        return "AWS refused kes's SigV4-signed request (HTTP " + status + "): " + answer.strip()
                + ". Check the AWS credentials kes found in the SDK's default chain (AWS_ACCESS_KEY_ID and "
                + "AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN for temporary ones, AWS_PROFILE, a web identity token or the "
                + "instance or container role), that their IAM principal may call the "
                + (serverless() ? "collection (its data access policy)" : "domain (its access policy)")
                + ", and elasticsearch.aws_sigv4.region (" + region + ") and elasticsearch.aws_sigv4.service ("
                + service + ").";
    }

    private static void check(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
