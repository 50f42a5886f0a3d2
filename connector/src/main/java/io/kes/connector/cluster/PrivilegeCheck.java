package io.kes.connector.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.connector.Durability;
import io.kes.connector.NonRecoverable;
import io.kes.connector.SinkSettings;
import java.io.IOException;
import java.io.InputStream;
import org.apache.flink.annotation.Internal;
import org.apache.http.entity.ContentType;
import org.apache.http.nio.entity.NStringEntity;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.ResponseException;
import org.elasticsearch.client.RestClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks at open that kes's user or API key holds the cluster privilege the writer relies on, so
 * that a least-privilege setup fails once with a message naming what is missing instead of at
 * every checkpoint. The cluster privilege {@code monitor} covers {@code _cluster/state} (shard
 * prediction, the checkpoint fence's primary terms), {@code _nodes/http} (bulks to the primary's
 * node) and {@code _tasks} (waiting out an earlier run's bulks). Index privileges depend on the
 * indices written; the fence names them when it is refused.
 *
 * <p>Without security (or without the {@code _security} API) there is nothing to check. OpenSearch
 * has no such API (its security plugin has another permission model): there the check is skipped,
 * and a missing permission shows as the 403 of the first call that needs it. {@link #probe} is public so that a preflight ({@code bin/kes check}) asks exactly what the writer
 * asks, before a job starts.
 */
@Internal
public final class PrivilegeCheck {

    private static final Logger LOG = LoggerFactory.getLogger(PrivilegeCheck.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What Elasticsearch said about kes's credentials. */
    public enum Outcome {
        /** The cluster privilege {@code monitor} is held. */
        GRANTED,
        /** Security is off, or the API is missing (OpenSearch): nothing to check. */
        NO_SECURITY,
        /** HTTP 401: wrong user, password or API key. */
        UNAUTHORIZED,
        /** Authenticated, without {@code monitor}. */
        MISSING_MONITOR,
        /** kes's own TLS checks refused the node's certificate (trust or host name): nothing was sent. */
        TLS_REFUSED,
        /** No answer (down, wrong host): the writer rides that out as usual. */
        UNREACHABLE
    }

    /** An {@link Outcome}, the text to show the user, and the exception behind it, if any. */
    public record Result(Outcome outcome, String message, Exception cause) {}

    private PrivilegeCheck() {}

    /**
     * A 401 at start, where kes knows which credentials it sent: which were refused, and the
     * settings that hold them. {@link #credentialsRefused} is the same refusal while the job runs.
     */
    public static String refusedCredentials(SinkSettings settings) {
        if (settings.hasApiKey()) {
            return "Elasticsearch refused kes's API key (HTTP 401: the key is wrong, expired or invalidated): set elasticsearch.api_key "
                    + "to a valid key (the 'encoded' value of POST _security/api_key).";
        }
        if (settings.username() != null) {
            return "Elasticsearch refused user '" + settings.username()
                    + "' (HTTP 401: unknown user or wrong password): check "
                    + "elasticsearch.username and elasticsearch.password.";
        }
        return "Elasticsearch requires credentials (HTTP 401): set elasticsearch.username and elasticsearch.password, or "
                + "elasticsearch.api_key.";
    }

    /** Asks Elasticsearch whether kes's user or API key holds the cluster privilege {@code monitor}. */
    public static Result probe(RestClient client, SinkSettings settings) {
        if (settings.awsSigV4() != null) {
            return signedProbe(client, settings);
        }
        try {
            ServerInfo server = ServerInfo.fetch(client);
            LOG.info("kes writes to {}", server);
            if (server.openSearch()) {
                return new Result(
                        Outcome.NO_SECURITY,
                        server + " has no _security/user/_has_privileges API: nothing to check"
                                + " (a missing permission shows as the 403 of the first call that needs it)",
                        null);
            }
        } catch (IOException e) {
            // GET / needs 'monitor' too (403 without it): the check below says so; anything else it meets again
        }
        try {
            Request request = new Request("POST", "/_security/user/_has_privileges");
            request.setEntity(new NStringEntity("{\"cluster\":[\"monitor\"]}", ContentType.APPLICATION_JSON));
            try (InputStream in = client.performRequest(request).getEntity().getContent()) {
                JsonNode root = JSON.readTree(in);
                return root.path("cluster").path("monitor").asBoolean(false)
                        ? new Result(Outcome.GRANTED, "cluster privilege monitor held", null)
                        : new Result(Outcome.MISSING_MONITOR, MISSING_MONITOR, null);
            }
        } catch (ResponseException e) {
            int status = e.getResponse().getStatusLine().getStatusCode();
            if (status == 401) {
                return new Result(Outcome.UNAUTHORIZED, refusedCredentials(settings) + " " + e.getMessage(), e);
            }
            return new Result(
                    Outcome.NO_SECURITY, "security is off: nothing to check", e); // the API answers 400/404/500 then
        } catch (IOException e) {
            String refused = TlsRefusal.describe(e, settings);
            if (refused != null) {
                return new Result(Outcome.TLS_REFUSED, refused, e);
            }
            return new Result(Outcome.UNREACHABLE, e.toString(), e);
        }
    }

    /**
     * With {@code elasticsearch.aws_sigv4} AWS's IAM policies decide, not Elasticsearch's security
     * API: {@code GET /} shows whether AWS accepts kes's signature and credentials (HTTP 403 with
     * AWS's reason when not). A Serverless collection may not answer {@code GET /}: any status other
     * than 401 and 403 means the signature passed.
     */
    private static Result signedProbe(RestClient client, SinkSettings settings) {
        try {
            ServerInfo server = ServerInfo.fetch(client);
            LOG.info("kes writes to {}, signing with AWS SigV4", server);
            return new Result(Outcome.NO_SECURITY, signedAccepted(settings), null);
        } catch (ResponseException e) {
            int status = e.getResponse().getStatusLine().getStatusCode();
            if (status == 401 || status == 403) {
                return new Result(Outcome.UNAUTHORIZED, settings.awsSigV4().refused(status, answer(e)), e);
            }
            return new Result(Outcome.NO_SECURITY, signedAccepted(settings), e);
        } catch (IOException e) {
            for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
                if (t instanceof SigV4Signing.NoCredentials none) {
                    return new Result(Outcome.UNAUTHORIZED, none.getMessage(), e);
                }
            }
            String refused = TlsRefusal.describe(e, settings);
            return refused != null
                    ? new Result(Outcome.TLS_REFUSED, refused, e)
                    : new Result(Outcome.UNREACHABLE, e.toString(), e);
        }
    }

    private static String signedAccepted(SinkSettings settings) {
        return "AWS accepts kes's SigV4 signature (" + settings.awsSigV4().service() + ", "
                + settings.awsSigV4().region() + "); IAM policies decide the rest (a missing permission "
                + "shows as the 403 of the first call that needs it)";
    }

    /** The body of a refusal (AWS says there why it refused), or its status line. */
    public static String answer(ResponseException e) {
        try {
            org.apache.http.HttpEntity entity = e.getResponse().getEntity();
            String body = entity == null ? "" : org.apache.http.util.EntityUtils.toString(entity);
            return body.isBlank() ? e.getResponse().getStatusLine().toString() : body;
        } catch (IOException | RuntimeException unreadable) {
            return e.getResponse().getStatusLine().toString();
        }
    }

    static final String MISSING_MONITOR =
            "kes's Elasticsearch user or API key lacks the cluster privilege 'monitor', which kes "
                    + "needs to read _cluster/state (shard prediction and the checkpoint fence's primary terms), _nodes/http and _tasks";

    /**
     * A 401 while the job runs (credentials revoked or expired since the start), in the one wording
     * every request of the writer and the fence uses; {@code request} names what was refused, e.g.
     * "a write to logs".
     */
    public static String credentialsRefused(String request) {
        return "Elasticsearch refused kes's credentials for " + request
                + " (HTTP 401: wrong, expired or revoked): check "
                + "elasticsearch.username and elasticsearch.password, or elasticsearch.api_key.";
    }

    /** What to do without {@code monitor}, by durability mode. */
    public static String missingMonitorFix(Durability durability) {
        return durability == Durability.CHECKPOINT_FENCE
                ? MISSING_MONITOR
                        + ". Grant it, or set elasticsearch.durability: request (indices that fsync every request need no fence)."
                : MISSING_MONITOR + ". Without it documents go in ordinary (mixed-shard) bulks.";
    }

    public static void atOpen(RestClient client, SinkSettings settings) {
        Result result = probe(client, settings);
        switch (result.outcome()) {
            case UNAUTHORIZED, TLS_REFUSED -> throw NonRecoverable.error(result.message(), result.cause());
            case MISSING_MONITOR -> {
                if (settings.durability() == Durability.CHECKPOINT_FENCE) {
                    throw NonRecoverable.error(missingMonitorFix(settings.durability()));
                }
                LOG.warn("{}", missingMonitorFix(settings.durability()));
            }
            default -> {} // granted, security off, or not reachable now (the writer rides that out as usual)
        }
    }
}
