package io.kes.jobs.preflight;

/** Elasticsearch or Kafka could not be reached or refused kes; the message names the setting to check. */
public final class CannotConnectException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public CannotConnectException(String message, Throwable cause) {
        super(message, cause);
    }
}
