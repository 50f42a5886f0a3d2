package io.kes.jobs.source;

import io.kes.connector.NonRecoverable;
import org.apache.kafka.common.errors.AuthenticationException;

/**
 * Kafka refusing the job's credentials: a wrong SCRAM password or user, a certificate the broker
 * does not trust (mTLS), a broker certificate the job does not trust, a protocol or mechanism the
 * listener does not speak. Kafka's clients report all of these as an
 * {@link AuthenticationException} ({@code SaslAuthenticationException},
 * {@code SslAuthenticationException}) and do not retry them themselves: the same credentials fail
 * the same way. A Flink restart would only repeat them for ever (checkpoints-config's restart
 * strategy has no limit), so they end the job with one error naming the settings to fix.
 */
public final class KafkaAuthentication {

    private KafkaAuthentication() {}

    /** The authentication failure in {@code failure}'s causes, or null. */
    public static AuthenticationException refusal(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof AuthenticationException e) {
                return e;
            }
        }
        return null;
    }

    /**
     * {@code failure} as {@link NonRecoverable#classify} has it, except that an authentication
     * failure ends the job with a message saying which part of {@code kafka.properties} to fix.
     */
    public static Exception classify(Throwable failure) {
        AuthenticationException refusal = refusal(failure);
        if (refusal == null) {
            return NonRecoverable.classify(failure);
        }
        return NonRecoverable.error(
                "Kafka refused the job's credentials (" + refusal.getClass().getSimpleName() + ": "
                        + refusal.getMessage()
                        + "); fix kafka.properties: security.protocol, sasl.mechanism and sasl.jaas.config "
                        + "(user and password) for SASL, ssl.truststore.* (the broker's CA) and, for mTLS, ssl.keystore.* and "
                        + "ssl.key.password. A restart cannot cure this, so the job stops",
                failure);
    }
}
