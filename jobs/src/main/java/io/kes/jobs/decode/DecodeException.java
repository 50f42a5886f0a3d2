package io.kes.jobs.decode;

/**
 * A record that cannot become a document: malformed JSON, a missing id or routing field, an
 * unparsable timestamp, a tombstone where no delete is configured. {@code errorType} is a short
 * stable label (metrics, dead-letter headers); the message says what to fix.
 */
public final class DecodeException extends Exception {

    private static final long serialVersionUID = 1L;
    private final String errorType;

    public DecodeException(String errorType, String message) {
        super(message);
        this.errorType = errorType;
    }

    public String errorType() {
        return errorType;
    }
}
