package io.kes.connector.bulk;

/**
 * The writer's first asynchronous failure: the one the job reports (later ones are suppressed in
 * it), after which nothing more is sent, and every checkpoint still waiting fails with it
 * ({@link CheckpointDrain#writerFailed}). Task thread only.
 */
final class FirstFailure {

    private final CheckpointDrain drain;
    private RuntimeException first;

    FirstFailure(CheckpointDrain drain) {
        this.drain = drain;
    }

    /** The job fails with {@code why} (null: it does not). */
    void fail(RuntimeException why) {
        if (why != null && first == null) {
            first = why;
            drain.writerFailed(why);
        } else if (why != null && first != why) {
            first.addSuppressed(why);
        }
    }

    boolean happened() {
        return first != null;
    }

    /** Rethrows the first failure, if any. */
    void rethrow() {
        if (first != null) {
            throw first;
        }
    }
}
